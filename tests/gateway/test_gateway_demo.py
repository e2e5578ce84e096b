"""`specbridge demo --once`: the example shop, the gateway in front of it, one real MCP call."""

from __future__ import annotations

from click.testing import CliRunner

from specbridge.cli import app


def test_the_demo_serves_the_example_shop_and_makes_one_real_call() -> None:
    result = CliRunner().invoke(app, ["demo", "--once", "--port", "0"])
    assert result.exit_code == 0, result.output
    assert "MCP gateway: http://127.0.0.1:" in result.output
    assert '"url": "http://127.0.0.1:' in result.output
    assert "claude mcp add --transport http" in result.output
    assert "Fountain pen" in result.output  # the answer of the real listProducts call


def test_the_demo_runs_one_script_in_code_mode_and_shows_only_its_result() -> None:
    result = CliRunner().invoke(app, ["demo", "--once", "--port", "0"])
    assert result.exit_code == 0, result.output
    assert "/shop-code/mcp: tools/list: search, execute" in result.output
    assert '{"result":[{"name":"Cap","euros":18.0},{"name":"T-shirt","euros":25.0}]' in result.output


def test_the_demo_shows_a_refund_waiting_for_approval_then_sent_once_approved() -> None:
    result = CliRunner().invoke(app, ["demo", "--once", "--port", "0"])
    assert result.exit_code == 0, result.output
    waiting, _, after = result.output.partition("tools/call refundOrder again:")
    assert "[approval-pending]" in waiting and "store sqlite:///" in waiting
    assert '"status":"refunded"' in after


def test_the_example_shop_answers_its_operations_and_checks_the_token() -> None:
    from starlette.testclient import TestClient

    from specbridge.examples.shop_api import shop_app

    with TestClient(shop_app("t0ken")) as client:
        assert client.get("/v1/products").status_code == 401
        auth = {"Authorization": "Bearer t0ken"}
        assert [p["id"] for p in client.get("/v1/products?limit=2", headers=auth).json()["items"]] == [
            "p-pen",
            "p-cap",
        ]
        upload = client.put(
            "/v1/products/p-mug/image",
            headers=auth,
            files={"file": ("mug.png", b"\x89PNG-bytes", "image/png")},
            data={"caption": "a mug"},
        )
        assert upload.json() == {"stored": len(b"\x89PNG-bytes"), "caption": "a mug"}
        image = client.get("/v1/products/p-mug/image", headers=auth)
        assert image.content == b"\x89PNG-bytes" and image.headers["content-type"] == "image/png"
        refund = client.post("/v1/orders/7c9e6679-7425-40de-944b-e07fc1f90ae7/refund", headers=auth)
        assert refund.json()["status"] == "refunded"
        again = client.post("/v1/orders/7c9e6679-7425-40de-944b-e07fc1f90ae7/refund", headers=auth)
        assert again.status_code == 409
