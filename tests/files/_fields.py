"""An API whose operations take and give files in every way OpenAPI says so, and its tools."""

from __future__ import annotations

from pathlib import Path

from specbridge.document import load_document
from specbridge.tools import ToolSet, convert

DOCUMENT = """\
openapi: 3.1.0
info: {title: Fields, version: '1'}
paths:
  /forms:
    post:
      operationId: sendForm
      requestBody:
        content:
          multipart/form-data:
            schema:
              type: object
              properties:
                file: {type: string, format: binary}
                picture: {type: string, contentMediaType: image/png}
                encoded: {type: string, contentEncoding: base64}
                note: {type: string}
                meta: {type: object}
      responses: {'204': {description: Done}}
  /raw:
    put:
      operationId: putRaw
      requestBody:
        content:
          application/octet-stream:
            schema: {type: string, format: binary}
      responses: {'204': {description: Done}}
  /text:
    put:
      operationId: putText
      requestBody:
        content:
          text/plain:
            schema: {type: string}
      responses: {'204': {description: Done}}
  /json:
    post:
      operationId: postJson
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {file: {type: string, format: binary}}}
      responses: {'204': {description: Done}}
"""


def tools(tmp_path: Path) -> ToolSet:
    path = tmp_path / "fields.yaml"
    path.write_text(DOCUMENT, encoding="utf-8")
    return convert(load_document(path))
