"""The patient simulator (Baichuan-M2's verifier half): cases, personas, fact units, the simulated patient,
the measurement responder, the consultation environment and the consultation loop.

Public API: ``cases.{load_cases, project_cases, import_agentclinic, find_case, CaseFormatError}``,
``personas.{Persona, sample_persona, sample_personas}``, ``prompts.DOCTOR_SYSTEM_PROMPT``,
``env.{ConsultationEnv, EnvStep}``, ``loop.{run_consultation, consult, consult_many, SamplingConfig,
ConsultationResult}`` (the one consultation loop), ``doctors`` (scripted doctors), ``human.TerminalDoctor``.
"""
