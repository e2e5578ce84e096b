"""A real OAuth 2.1 / OpenID Connect authorization server for tests: Debian's glewlwyd on loopback.

    with Glewlwyd(tmp_path) as server:                # its own config, SQLite database and web pages
        server.allow_resources("http://127.0.0.1:8000/shop/mcp")
        token = server.client_credentials_token()     # a JWT access token (RS256, `at+jwt`) for it

It is set up through its own admin API, as an operator would: the OpenID Connect plugin (`oidc`, at
`/api/oidc`: discovery, JWKS, token, introspection, dynamic client registration, authorization code
with PKCE, resource indicators, ID tokens that carry `email`) signing with an RSA key made here; the
scope `mcp:tools`; the user `alice` (who may also grant `openid`: the gateway's own sign-in asks for
it); a confidential client `robot` (client credentials). glewlwyd answers an introspection request
signed in with HTTP Basic only about the signing client's own tokens (another client's token is "not
active"), so a test of introspection lets the gateway sign in as `robot`.
Resource indicators (RFC 8707) are checked by glewlwyd against the resources allowed for `mcp:tools`,
so a test names the gateway URLs it will use (`allow_resources`).

Two quirks of the Debian package are worked around here, not patched: `use_secure_connection=false`
still asks for certificate files (the key is left out), and the package's web pages are symlinks that
glewlwyd's file server refuses to follow (they are copied, links resolved, with our own config.json).
Ready means the line "Glewlwyd started on port" was printed; nothing sleeps.
"""

from __future__ import annotations

import gzip
import os
import shutil
import socket
import sqlite3
import subprocess
import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.support.required import lacking

BINARY = Path(os.environ.get("SPECBRIDGE_TEST_GLEWLWYD", "/usr/bin/glewlwyd"))
SCHEMA = Path("/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3")
SCHEMA_DOC = Path("/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz")
WEBAPP = Path("/usr/share/glewlwyd/webapp")
CONFIG_JSON = Path("/usr/share/glewlwyd/templates/config.json")
MODULES = Path("/usr/lib/glewlwyd")
SCOPE = "mcp:tools"
USER, PASSWORD = "alice", "alice-password-1"
USER_SUB = "alice-subject-7f3a"  # her `sub` in access tokens (glewlwyd's public subject identifier)
EMAIL = "alice@example.com"  # her `email` in ID tokens
ROBOT, ROBOT_SECRET = "robot", "robot-secret-1"
READY = "Glewlwyd started on port"


def missing() -> str | None:
    """Why glewlwyd cannot run here (None when it can)."""
    if not BINARY.is_file():
        return lacking("glewlwyd", f"no glewlwyd at {BINARY} (apt-get install glewlwyd)")
    if not (SCHEMA.is_file() or SCHEMA_DOC.is_file()) or not WEBAPP.is_dir():
        return lacking(
            "glewlwyd",
            "its database schema or web pages are not installed (apt-get install --reinstall glewlwyd)",
        )
    return None


def _schema() -> str:
    if SCHEMA.is_file():
        return SCHEMA.read_text(encoding="utf-8")
    return gzip.decompress(SCHEMA_DOC.read_bytes()).decode("utf-8")


ADMIN_LOGIN = {"username": "admin", "password": "password"}


class _SignedIn(httpx.Auth):
    """glewlwyd's admin API on a session cookie, signed in again when the session lapses: its `g_admin`
    scope asks for the password again after `password_max_age` (10 minutes in its schema), which a
    whole suite on a loaded machine outlasts (the admin API then answers 401)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        response = yield request
        if response.status_code != 401 or request.url.path == "/api/auth/":
            return
        signed_in = yield httpx.Request("POST", f"{self.url}/api/auth/", json=ADMIN_LOGIN)
        if signed_in.status_code != 200:
            return
        cookies = httpx.Cookies()
        cookies.extract_cookies(signed_in)
        request.headers.pop("Cookie", None)
        cookies.set_cookie_header(request)
        yield request


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


CONFIG = """\
port={port}
bind_address="127.0.0.1"
external_url="{url}"
login_url="login.html"
api_prefix="api"
static_files_path="{folder}/webapp/"
allow_origin="*"
log_mode="console"
log_level="INFO"
cookie_secure=0
cookie_same_site="empty"
session_expiration=3600
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
plugin_api_run_enabled=""
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="{modules}/user"
client_module_path="{modules}/client"
user_auth_scheme_module_path="{modules}/scheme"
plugin_module_path="{modules}/plugin"
hash_algorithm="SHA512"
database = {{ type = "sqlite3" path = "{folder}/glewlwyd.db" }};
static_files_mime_types = (
{mime_types}
)
"""
MIME_TYPES = {
    ".html": "text/html",
    ".css": "text/css",
    ".js": "application/javascript",
    ".json": "application/json",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".ttf": "font/ttf",
}


class Glewlwyd:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = 0
        self.url = ""
        self.output: list[str] = []
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        self._admin: httpx.Client | None = None
        self._resources: list[str] = []
        self._printed = threading.Condition()  # notified for each line glewlwyd prints
        self._marker = False  # the client `marker` exists (`tokens_issued`)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.private_pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        self.public_pem = (
            key.public_key()
            .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode()
        )

    @property
    def issuer(self) -> str:
        return f"{self.url}/api/oidc"

    @property
    def address(self) -> str:
        """The `host:port` an `egress.allow` entry names."""
        return f"127.0.0.1:{self.port}"

    def __enter__(self) -> Glewlwyd:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        webapp = self.folder / "webapp"
        if not webapp.exists():
            shutil.copytree(WEBAPP, webapp, ignore=shutil.ignore_patterns("config.json"))  # links resolved
            shutil.copyfile(CONFIG_JSON, webapp / "config.json")
        database = sqlite3.connect(self.folder / "glewlwyd.db")
        database.executescript(_schema())
        # The admin scope asks for the password again after 600 s (the schema's gs_password_max_age): a
        # whole run's one server (the session fixture) outlives that. 0: the sign-in lasts the session.
        database.execute("UPDATE g_scope SET gs_password_max_age = 0 WHERE gs_name = 'g_admin'")
        database.commit()
        database.close()
        for _ in range(3):  # a port taken between choosing it and glewlwyd binding it: choose again
            if self._launch():
                break
        else:
            raise RuntimeError("glewlwyd did not start:\n" + "\n".join(self.output[-20:]))
        self._admin = httpx.Client(base_url=self.url, timeout=10, auth=_SignedIn(self.url))
        self._check(self._admin.post("/api/auth/", json=ADMIN_LOGIN))
        self._setup()

    def _launch(self) -> bool:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        mime = ",\n".join(
            f'  {{ extension = "{extension}" mime_type = "{kind}" }}'
            for extension, kind in MIME_TYPES.items()
        )
        config = self.folder / "glewlwyd.conf"
        config.write_text(
            CONFIG.format(port=self.port, url=self.url, folder=self.folder, modules=MODULES, mime_types=mime),
            encoding="utf-8",
        )
        process = subprocess.Popen(
            [str(BINARY), "--config-file", str(config)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        ready = threading.Event()

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                with self._printed:
                    self.output.append(line.rstrip())
                    self._printed.notify_all()
                if READY in line:
                    ready.set()
            ready.set()  # it ended: not ready

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        self._process, self._reader = process, reader
        if not ready.wait(30) or process.poll() is not None:
            self._end(kill=True)
            return False
        return True

    def _end(self, *, kill: bool = False) -> None:
        process = self._process
        if process is None:
            return
        if kill:
            process.kill()
        else:
            process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        if self._reader is not None:
            self._reader.join(10)  # it has read to the end of the output
        if process.stdout is not None:
            process.stdout.close()
        self._process = self._reader = None

    def stop(self) -> None:
        if self._admin is not None:
            self._admin.close()
        self._end()

    def _check(self, response: httpx.Response) -> httpx.Response:
        if response.status_code != 200:
            raise RuntimeError(
                f"glewlwyd {response.request.url.path}: {response.status_code} {response.text}"
            )
        return response

    def _plugin(self) -> dict[str, Any]:
        return {
            "module": "oidc",
            "name": "oidc",
            "display_name": "OpenID Connect",
            "parameters": {
                "iss": self.issuer,
                "jwt-type": "rsa",
                "jwt-key-size": "256",
                "key": self.private_pem,
                "cert": self.public_pem,
                "jwks-show": True,
                "access-token-duration": 3600,
                "refresh-token-duration": 86400,
                "code-duration": 600,
                "refresh-token-rolling": True,
                "allow-non-oidc": True,
                "auth-type-code-enabled": True,
                "auth-type-client-enabled": True,
                "auth-type-refresh-enabled": True,
                "auth-type-token-enabled": False,
                "auth-type-id-token-enabled": False,
                "auth-type-none-enabled": False,
                "auth-type-password-enabled": False,
                "auth-type-device-enabled": False,
                "pkce-allowed": True,
                "pkce-method-plain-allowed": False,
                "introspection-revocation-allowed": True,
                "introspection-revocation-allow-target-client": True,
                "introspection-revocation-auth-scope": [],
                "register-client-allowed": True,
                "register-client-auth-scope": [],
                "register-client-credentials-scope": [],
                "register-client-management-allowed": False,
                "resource-allowed": True,
                "resource-scope": {SCOPE: list(self._resources) or [f"{self.url}/unused"]},
                "resource-client-property": "resource",
                "resource-scope-and-client-property": False,
                "subject-type": "public",
                "email-claim": "mandatory",  # ID tokens carry `email` (the gateway's sign-in maps by it)
            },
        }

    def _setup(self) -> None:
        admin = self._admin_client()
        self._check(admin.post("/api/mod/plugin/", json=self._plugin()))
        scope = {"name": SCOPE, "display_name": "MCP tools", "description": "Use the gateway's tools"}
        self._check(admin.post("/api/scope/", json={**scope, "password_required": True, "scheme": {}}))
        self._check(
            admin.post(
                "/api/user/",
                json={
                    "username": USER,
                    "password": PASSWORD,
                    "scope": [SCOPE, "openid"],
                    "enabled": True,
                    "email": EMAIL,
                },
            )
        )
        self._pin_subject()
        self._check(
            admin.post(
                "/api/client/",
                json={
                    "client_id": ROBOT,
                    "client_name": ROBOT,
                    "client_secret": ROBOT_SECRET,
                    "confidential": True,
                    "authorization_type": ["client_credentials"],
                    "token_endpoint_auth_method": ["client_secret_basic"],
                    "redirect_uri": [],
                    "scope": [SCOPE],
                    "enabled": True,
                },
            )
        )

    def _pin_subject(self) -> None:
        """glewlwyd makes up a random public `sub` per user on first use and keeps it in this table (which
        its plugin makes anew whenever it is set up); one written first is hers, so a config can name
        her `clients.<sub>` before she signs in."""
        database = sqlite3.connect(self.folder / "glewlwyd.db")
        database.execute("DELETE FROM gpo_subject_identifier WHERE gposi_username = ?", (USER,))
        database.execute(
            "INSERT INTO gpo_subject_identifier (gposi_plugin_name, gposi_username, gposi_sub) VALUES (?, ?, ?)",
            ("oidc", USER, USER_SUB),
        )
        database.commit()
        database.close()

    def allow_resources(self, *urls: str) -> None:
        """Let tokens for `mcp:tools` be issued for these resource URLs (and only these)."""
        admin = self._admin_client()
        self._resources = list(urls)
        self._check(admin.put("/api/mod/plugin/oidc", json=self._plugin()))
        self._check(admin.put("/api/mod/plugin/oidc/reset"))  # glewlwyd reads the new settings
        self._pin_subject()

    def token_response(
        self, resource: str | None, *, client: str = ROBOT, secret: str = ROBOT_SECRET
    ) -> httpx.Response:
        data = {"grant_type": "client_credentials", "scope": SCOPE}
        if resource is not None:
            data["resource"] = resource
        return httpx.post(f"{self.issuer}/token", data=data, auth=(client, secret), timeout=10)

    def client_credentials_token(self, resource: str | None) -> str:
        """A JWT access token for the client `robot`, issued for `resource` (RFC 8707)."""
        return str(self._check(self.token_response(resource)).json()["access_token"])

    # -- more clients, scopes and people (for the gateway as an OAuth client of an API: grants/) ---------

    def add_scope(self, name: str) -> None:
        """A scope people grant with their password (as `mcp:tools`)."""
        scope = {"name": name, "display_name": name, "description": f"Use {name}"}
        self._check(
            self._admin_client().post("/api/scope/", json={**scope, "password_required": True, "scheme": {}})
        )

    def add_user(self, username: str, password: str, scopes: list[str]) -> None:
        user = {"username": username, "password": password, "scope": scopes, "enabled": True}
        self._check(self._admin_client().post("/api/user/", json=user))

    def grant_scope(self, username: str, scope: str) -> None:
        """Let an existing person (e.g. `alice`) grant `scope` too."""
        admin = self._admin_client()
        user = self._check(admin.get(f"/api/user/{username}")).json()
        user["scope"] = sorted({*user.get("scope", []), scope})
        user.pop("password", None)
        self._check(admin.put(f"/api/user/{username}", json=user))

    def add_client(
        self,
        client_id: str,
        secret: str | None,
        *,
        grants: list[str],
        scopes: list[str],
        redirect_uris: list[str] = (),  # type: ignore[assignment]
    ) -> None:
        """A client of glewlwyd's OAuth 2 plugin: `grants` among `client_credentials`, `code`,
        `refresh_token`; confidential (HTTP Basic) with a secret, public without."""
        client = {
            "client_id": client_id,
            "client_name": client_id,
            "confidential": secret is not None,
            "authorization_type": grants,
            "token_endpoint_auth_method": ["client_secret_basic"] if secret is not None else ["none"],
            "redirect_uri": list(redirect_uris),
            "scope": scopes,
            "enabled": True,
        }
        if secret is not None:
            client["client_secret"] = secret
        self._check(self._admin_client().post("/api/client/", json=client))

    def tokens_issued(self, client_id: str) -> int:
        """How many access tokens glewlwyd says it issued to `client_id` (by its own log, every grant),
        counted once a marker token request of its own is logged: everything before it is read."""
        if not self._marker:
            self.add_client("marker", "marker-secret-1", grants=["client_credentials"], scopes=[SCOPE])
            self._marker = True
        start = len(self.output)
        self._check(self.token_response(None, client="marker", secret="marker-secret-1"))
        with self._printed:
            logged = self._printed.wait_for(
                lambda: any("client 'marker'" in line for line in self.output[start:]), timeout=20
            )
        assert logged, "glewlwyd did not log the marker's token"
        wanted = f"Access token generated for client '{client_id}'"
        return sum(wanted in line for line in self.output)

    def consent(self, authorization_url: str, username: str, password: str) -> str:
        """A person signs in and grants what `authorization_url` (glewlwyd's `/auth` with its query)
        asks, through glewlwyd's own API instead of its pages (the pages are driven in Chromium by
        tests/gateway/test_gateway_accounts_flow.py); the URL glewlwyd sends the browser back to."""
        query = dict(parse_qsl(urlsplit(authorization_url).query))
        with httpx.Client(base_url=self.url, timeout=10) as person:
            self._check(person.post("/api/auth/", json={"username": username, "password": password}))
            self._check(person.put(f"/api/auth/grant/{query['client_id']}", json={"scope": query["scope"]}))
            answer = person.get(authorization_url + "&g_continue")
        if answer.status_code != 302:
            raise RuntimeError(f"glewlwyd /auth: {answer.status_code} {answer.text}")
        return answer.headers["location"]

    def subject(self, username: str) -> str | None:
        """The `sub` glewlwyd puts in `username`'s tokens (made on her first token; None before)."""
        database = sqlite3.connect(self.folder / "glewlwyd.db")
        try:
            row = database.execute(
                "SELECT gposi_sub FROM gpo_subject_identifier WHERE gposi_username = ? AND gposi_plugin_name = ?",
                (username, "oidc"),
            ).fetchone()
        finally:
            database.close()
        return None if row is None else str(row[0])

    def _admin_client(self) -> httpx.Client:
        assert self._admin is not None, "glewlwyd is not started"
        return self._admin

    def revoke(self, token: str) -> None:
        self._check(
            httpx.post(
                f"{self.issuer}/revoke",
                data={"token": token, "token_type_hint": "access_token"},
                auth=(ROBOT, ROBOT_SECRET),
                timeout=10,
            )
        )
