"""Every error specbridge raises, in one tree, each with a stable code.

    SpecbridgeError                 (code, message; never carries a secret or an argument value)
    ├── DocumentError               an API document that cannot be used (file, pointer, line)
    ├── ConfigError                 a specbridge.yaml that cannot be used (file, key, what is valid)
    ├── CallError                   one tool call that was refused or failed; becomes an isError result
    │   ├── ArgumentError           arguments that do not fit the tool's input schema (paths only)
    │   ├── RequestRefused          a request that would be unsafe to send (path escape, header, egress)
    │   ├── UpstreamError           the API answered badly or not at all (status, timeout, redirect)
    │   ├── ApprovalError           approvals/: an approval that does not (yet) allow the call or answer
    │   ├── FileNotFound            files/: a file id that is not the caller's, or expired
    │   └── GrantError              grants/: the API's token endpoint gave no usable token
    ├── TokenError                  an OAuth access token refused, or not checkable now (access/)
    ├── ConnectError                grants/: a connect page or callback that cannot go on
    ├── Declined                    grants/: the person (or the authorization server) declined to connect
    ├── SignInError                 access/: a sign-in at the upstream OpenID Connect provider that failed
    ├── PageError                   front/: an authorization request the front shows as a page, never redirects
    ├── ClientError                 front/: a client's metadata document or registration that cannot be used
    ├── StoreError                  store/: the store cannot be reached, opened or migrated
    │   └── StoreLost               the store lost its data while the gateway ran (at-most-once calls refused)
    ├── DeliveryFailed              webhooks/: one webhook delivery attempt failed (retried later)
    ├── SemanticUnavailable         search/: semantic ranking asked for without its extra or model
    ├── StartError                  a command cannot do its work: a port in use, an address not of this
    │                               machine, an output file that cannot be written
    └── ExportError (ValueError)    `export()` asked for a format or option that does not exist

Classes outside this file live with the package that raises them; `tests/test_error_tree.py` keeps
this drawing whole. `ErrorCode` is the list `docs/errors.md` documents; a test keeps the two in step.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    # Reading a document
    DOCUMENT_NOT_FOUND = "document-not-found"
    DOCUMENT_UNREADABLE = "document-unreadable"
    DOCUMENT_SYNTAX = "document-syntax"
    DOCUMENT_NOT_OPENAPI = "document-not-openapi"
    DOCUMENT_VERSION = "document-version"
    DOCUMENT_STRUCTURE = "document-structure"
    # Configuration
    CONFIG_NOT_FOUND = "config-not-found"
    CONFIG_SYNTAX = "config-syntax"
    CONFIG_INVALID = "config-invalid"
    TOOLSET_CLASH = "toolset-clash"
    # Tool calls
    TOOL_UNKNOWN = "tool-unknown"
    ARGUMENTS_INVALID = "arguments-invalid"
    ARGUMENT_BOUND = "argument-bound"
    PATH_REFUSED = "path-refused"
    HEADER_REFUSED = "header-refused"
    BODY_REFUSED = "body-refused"
    EGRESS_REFUSED = "egress-refused"
    BASE_URL_MISSING = "base-url-missing"
    SECRET_UNKNOWN = "secret-unknown"
    SECRET_UNAVAILABLE = "secret-unavailable"
    UPSTREAM_STATUS = "upstream-status"
    UPSTREAM_REDIRECT = "upstream-redirect"
    REDIRECT_LIMIT = "redirect-limit"
    UPSTREAM_TIMEOUT = "upstream-timeout"
    UPSTREAM_UNREACHABLE = "upstream-unreachable"
    APPROVAL_REQUIRED = "approval-required"
    # Gateway (specbridge serve)
    GATEWAY_TIMEOUT = "gateway-timeout"
    GATEWAY_INTERNAL = "gateway-internal"
    GATEWAY_STOPPING = "gateway-stopping"
    CURSOR_INVALID = "cursor-invalid"
    KEY_MISSING = "key-missing"
    KEY_INVALID = "key-invalid"
    API_FORBIDDEN = "api-forbidden"
    ORIGIN_REFUSED = "origin-refused"
    # OAuth access tokens (access/, `apis.<name>.oauth`)
    TOKEN_MISSING = "token-missing"
    TOKEN_INVALID = "token-invalid"
    TOKEN_SCOPE_INSUFFICIENT = "token-scope-insufficient"
    TOKEN_CLIENT_UNKNOWN = "token-client-unknown"
    TOKEN_CHECK_UNAVAILABLE = "token-check-unavailable"
    SERVE_UNSAFE_BIND = "serve-unsafe-bind"
    RESPONSE_UNEXPECTED = "response-unexpected"
    ANSWER_SHORTENED = "answer-shortened"
    # Approvals and the store
    APPROVAL_PENDING = "approval-pending"
    APPROVAL_REJECTED = "approval-rejected"
    APPROVAL_ANSWERED = "approval-answered"
    APPROVAL_EXPIRED = "approval-expired"
    APPROVAL_NOT_FOUND = "approval-not-found"
    APPROVAL_OUTCOME_UNKNOWN = "approval-outcome-unknown"
    APPROVAL_REASON_MISSING = "approval-reason-missing"
    APPROVAL_ACCESS_REVOKED = "approval-access-revoked"
    STORE_UNAVAILABLE = "store-unavailable"
    UPSTREAM_DNS_FAILED = "upstream-dns-failed"
    HOST_REFUSED = "host-refused"
    REF_REFUSED = "ref-refused"
    # Command line (what a terminal user can get)
    SERVE_PORT_IN_USE = "serve-port-in-use"
    SERVE_ADDRESS_INVALID = "serve-address-invalid"
    OUTPUT_UNWRITABLE = "output-unwritable"
    EXPORT_INVALID = "export-invalid"
    INTERNAL_ERROR = "internal-error"
    PARAMETER_DROPPED = "parameter-dropped"
    SEARCH_MODEL_UNAVAILABLE = "search-model-unavailable"
    EXTRA_MISSING = "extra-missing"
    INSTALL_INVALID = "install-invalid"
    # Answering approvals (admin API, web page, command line)
    ADMIN_KEY_INVALID = "admin-key-invalid"
    CSRF_INVALID = "csrf-invalid"
    REQUEST_INVALID = "request-invalid"
    WEBHOOK_FAILED = "webhook-failed"
    # What one call may carry (call/_limits.py), malformed requests, sessions
    ARGUMENTS_TOO_LARGE = "arguments-too-large"
    ARGUMENTS_TOO_MANY_ITEMS = "arguments-too-many-items"
    ARGUMENTS_TOO_MANY_VALUES = "arguments-too-many-values"
    ARGUMENT_STRING_TOO_LONG = "argument-string-too-long"
    ARGUMENTS_TOO_DEEP = "arguments-too-deep"
    PARAMS_INVALID = "params-invalid"
    SESSION_LIMIT = "session-limit"
    BODY_NOT_BASE64 = "body-not-base64"
    # Idempotency keys and long calls (gateway/_idempotency.py, gateway/_long_calls.py)
    IDEMPOTENCY_KEY_REUSED = "idempotency-key-reused"
    IDEMPOTENCY_OUTCOME_UNKNOWN = "idempotency-outcome-unknown"
    CALL_PENDING = "call-pending"
    CALL_NOT_FOUND = "call-not-found"
    CALL_OUTCOME_UNKNOWN = "call-outcome-unknown"
    # approvals.by: client (gateway/_elicit.py)
    APPROVAL_ASK_FAILED = "approval-ask-failed"
    WEBHOOK_SIGNATURE_INVALID = "webhook-signature-invalid"
    # Attachments (gateway/_files.py)
    FILE_NOT_FOUND = "file-not-found"
    FILE_TOO_LARGE = "file-too-large"
    # Reading files the user names (_files.py)
    DOCUMENT_TOO_LARGE = "document-too-large"
    CONFIG_TOO_LARGE = "config-too-large"
    # Rate limits and the audit log (service/_access.py, _audit.py)
    RATE_LIMITED = "rate-limited"
    AUDIT_UNWRITABLE = "audit-unwritable"
    # OAuth toward the APIs (grants/)
    UPSTREAM_AUTH_FAILED = "upstream-auth-failed"
    ACCOUNT_NOT_CONNECTED = "account-not-connected"
    CONNECT_INVALID = "connect-invalid"
    CONNECT_DECLINED = "connect-declined"
    # Code mode: a script in the sandbox (codemode/)
    SCRIPT_INVALID = "script-invalid"
    SCRIPT_FAILED = "script-failed"
    SCRIPT_TIMEOUT = "script-timeout"
    SCRIPT_MEMORY = "script-memory"
    SCRIPT_RECURSION = "script-recursion"
    SCRIPT_OUTPUT_TOO_LARGE = "script-output-too-large"
    SCRIPT_CALLS_EXCEEDED = "script-calls-exceeded"
    SCRIPT_IMPORT_REFUSED = "script-import-refused"
    SCRIPT_OS_REFUSED = "script-os-refused"
    SCRIPT_CRASHED = "script-crashed"
    SCRIPT_BUSY = "script-busy"
    SCRIPT_NOT_FOUND = "script-not-found"
    SCRIPT_RUNNING = "script-running"
    PERSON_NOT_SIGNED_IN = "person-not-signed-in"
    # The gateway's own authorization server (front/) and sign-in with OpenID Connect
    SIGNIN_FAILED = "signin-failed"
    SIGNIN_UNMAPPED = "signin-unmapped"
    AUTHORIZE_INVALID = "authorize-invalid"
    CLIENT_METADATA_INVALID = "client-metadata-invalid"
    REGISTRATION_LIMITED = "registration-limited"


class SpecbridgeError(Exception):
    """Base of every error specbridge raises on purpose."""

    code: ErrorCode = ErrorCode.DOCUMENT_UNREADABLE

    def __init__(self, message: str, *, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.message


class DocumentError(SpecbridgeError):
    """The API document cannot be used; names the file, the JSON pointer and (YAML/JSON) the line."""

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode,
        source: str,
        pointer: str = "",
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        where = source
        if line is not None:
            where += f":{line}" + (f":{column}" if column is not None else "")
        if pointer:
            where += f" at {pointer}"
        super().__init__(f"{where}: {message}", code=code)
        self.source = source
        self.pointer = pointer
        self.line = line
        self.column = column


class ConfigError(SpecbridgeError):
    """The configuration cannot be used; names the file and the key, and says what would be valid."""

    code = ErrorCode.CONFIG_INVALID

    def __init__(self, message: str, *, source: str, key: str = "", code: ErrorCode | None = None) -> None:
        where = f"{source}: {key}: " if key else f"{source}: "
        super().__init__(where + message, code=code or ErrorCode.CONFIG_INVALID)
        self.source = source
        self.key = key


class CallError(SpecbridgeError):
    """A tool call that was refused or failed; the message is safe to show to the agent."""

    code = ErrorCode.TOOL_UNKNOWN


class ArgumentError(CallError):
    """Arguments that do not fit the input schema; `problems` name paths, never values."""

    code = ErrorCode.ARGUMENTS_INVALID

    def __init__(self, problems: list[str]) -> None:
        super().__init__("invalid arguments: " + "; ".join(problems))
        self.problems = problems


class RequestRefused(CallError):
    """The request would be unsafe to send; nothing was sent."""


class UpstreamError(CallError):
    """The API answered with an error, a redirect, or not in time."""


class TokenError(SpecbridgeError):
    """An OAuth access token that is refused (`token-invalid`: its message says why, never quoting the
    token) or cannot be checked now (`token-check-unavailable`: the authorization server's JWKS or
    introspection endpoint did not answer usably)."""

    code = ErrorCode.TOKEN_INVALID


class StartError(SpecbridgeError):
    """A command cannot do its work: a port in use, an address that is not this machine's, an output file
    that cannot be written. Nothing was served or written."""

    code = ErrorCode.SERVE_ADDRESS_INVALID


class ExportError(SpecbridgeError, ValueError):
    """`export()` was asked for a format that does not exist, or an option the format does not have."""

    code = ErrorCode.EXPORT_INVALID
