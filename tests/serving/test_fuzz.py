"""Schemathesis against the app's own OpenAPI schema on a real server: no 5xx anywhere (nor in a
batch's items), every 4xx in the one error shape, responses as documented. A scripted ``ChatClient``
stands in for the policy, the judge and the rubric model (the fuzz is about the HTTP surface, not
about generation); examples are capped per operation and derandomized so that CI runs the same cases
every time."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from serving.app import create_app
from serving.routes_common import ErrorBody
from tests.serving.conftest import KEY_A, ScriptedClient, make_settings, run_server

EXAMPLES_PER_OPERATION = 20  # about 530 requests in all, past validation on half of them
HEADERS = {"Authorization": f"Bearer {KEY_A}"}
# Not checked, each for a reason:
# * positive_data_acceptance: schema-valid requests are refused, as documented 4xx in the error shape,
#   where the server's settings and rules decide (max_tokens over MEDVERIFIER_MAX_TOKENS_LIMIT, an
#   unknown consultation, `no_judge`, generator 'case' without a case); "accept all the schema allows"
#   is not the contract.
# * negative_data_rejection: pydantic's lax mode accepts what the schema's types exclude (`false` for an
#   integer, "1" for a number), and a batch answers an invalid entry with its own 422 item by design. What
#   is checked instead: whatever is refused is refused with a 4xx in the error shape, never a 5xx.
EXCLUDED = [positive_data_acceptance, negative_data_rejection]


@schemathesis.check
def error_shape(ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case) -> None:
    """Every 4xx is an ``ErrorBody``; a batch answers no item with a server error either."""
    if 400 <= response.status_code < 500:
        ErrorBody.model_validate(response.json())
    if response.status_code == 200 and case.path == "/v1/verify/batch":
        failed = [i for i in response.json()["data"] if i["status"] >= 500]
        assert not failed, f"batch items with server errors: {failed}"


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory) -> Iterator[schemathesis.BaseSchema]:
    scripted = ScriptedClient(reply=lambda messages: '{"explanation": "scripted", "criteria_met": true}')
    app_settings = make_settings(tmp_path_factory.mktemp("fuzz"), request_timeout_s=60)
    app = create_app(app_settings, client=scripted, judge=scripted, rubric_client=scripted)
    with run_server(app) as server:
        schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
        schema.config.update(base_url=server.url)
        yield schema


def aim(case: schemathesis.Case, http: httpx.Client) -> None:
    """Point valid cases past the first 404: the served model's name, an existing consultation."""
    if case.path == "/v1/chat/completions" and isinstance(case.body, dict):
        case.body["model"] = "scripted"
    if case.path_parameters and "consultation_id" in case.path_parameters:
        case.path_parameters["consultation_id"] = http.post("/v1/consultations", json={}).json()["id"]


def fuzz(operation: schemathesis.APIOperation, mode: GenerationMode, statuses: Counter,
         http: httpx.Client) -> str | None:
    """The first failure found for ``operation`` in ``mode`` (shrunk by hypothesis), or None."""
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate, Phase.shrink])
    def run(case: schemathesis.Case) -> None:
        if mode is GenerationMode.POSITIVE:
            aim(case, http)
        response = case.call_and_validate(headers=HEADERS, timeout=60, additional_checks=[error_shape],
                                          excluded_checks=EXCLUDED)
        statuses[response.status_code // 100] += 1

    try:
        run()
    except Unsatisfiable:  # nothing to vary (no parameters to break): nothing to find
        return None
    except (Exception, BaseExceptionGroup) as exc:  # the check failures, with a curl line reproducing them
        return f"{operation.label} ({mode.value}): {exc}"
    return None


def test_no_server_errors_and_one_error_shape(api_schema: schemathesis.BaseSchema) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 13, [o.label for o in operations]
    statuses: Counter = Counter()
    # one client for the consultations ``aim`` opens: a client of its own for each case loaded the CA bundle each
    # time, a sixth of the test
    with httpx.Client(base_url=operations[0].base_url or "", headers=HEADERS) as http:
        failures = [f for op in operations for mode in GenerationMode if (f := fuzz(op, mode, statuses, http))]
    assert not failures, "\n\n".join(failures)
    assert statuses[5] == 0 and statuses[2] > 100 and statuses[4] > 100, statuses  # it reached past validation
