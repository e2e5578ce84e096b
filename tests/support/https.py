"""A real HTTPS server on loopback that serves JSON documents (a client's metadata document, for the
gateway's own authorization server to fetch), with a certificate for 127.0.0.1 made here and trusted
by this process's one TLS client context (`specbridge.call.tls_context`) for the test's length.

    with HttpsDocuments() as documents:
        url = documents.serve("/client.json", {...})     # https://127.0.0.1:<port>/client.json
        documents.fetched                                # how many times each path was fetched
"""

from __future__ import annotations

import datetime
import functools
import ipaddress
import json
import ssl
import tempfile
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@functools.cache
def _certificate() -> tuple[bytes, bytes]:
    """One certificate per process, trusted once: two self-signed ones with one subject would leave
    OpenSSL checking a server's chain against whichever it finds first."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=6))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    pem = certificate.public_bytes(serialization.Encoding.PEM)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return pem, private


_trusted: list[bool] = []


class HttpsDocuments:
    def __init__(self) -> None:
        self.documents: dict[str, bytes] = {}
        self.fetched: Counter[str] = Counter()
        self.certificate, key = _certificate()
        self._folder = tempfile.TemporaryDirectory()
        chain, secret = Path(self._folder.name, "cert.pem"), Path(self._folder.name, "key.pem")
        chain.write_bytes(self.certificate)
        secret.write_bytes(key)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(chain, secret)
        served = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                served.fetched[self.path] += 1
                body = served.documents.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self._server.server_address[1]}"

    def url(self, path: str) -> str:
        return f"https://{self.address}{path}"

    def serve(self, path: str, document: Any) -> str:
        self.documents[path] = json.dumps(document).encode()
        return self.url(path)

    def __enter__(self) -> HttpsDocuments:
        from specbridge.call import tls_context

        if not _trusted:
            tls_context().load_verify_locations(cadata=self.certificate.decode())
            _trusted.append(True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._folder.cleanup()
