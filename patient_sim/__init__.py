"""The patient simulator (Baichuan-M2's verifier half): cases, personas, fact units, the simulated patient,
the measurement responder, the step-wise ``ConsultationEnv`` and the LangGraph consultation graph.

Public API: ``cases.{load_cases, project_cases, import_agentclinic, find_case, CaseFormatError}``,
``personas.{Persona, sample_persona, sample_personas}``, ``prompts.DOCTOR_SYSTEM_PROMPT``,
``env.{ConsultationEnv, EnvStep}``, ``graph.{run_consultation, run_consultations, ConsultationResult}``,
``human.TerminalDoctor``.
"""
