"""The one look of the pages the gateway serves to people: the admin page (admin/_html.py) and the
connect pages (grants/_pages.py) each add their own rules to `BASE_STYLE`. Served inline under a
Content-Security-Policy that allows a style sheet only by its SHA-256 (`style_hash`)."""

from __future__ import annotations

import base64
import hashlib

BASE_STYLE = """
*{box-sizing:border-box}
body{font:16px/1.45 system-ui,sans-serif;margin:0 auto;max-width:62rem;padding:0 1rem 2rem;color:#1a1a1a}
header{display:flex;flex-wrap:wrap;gap:.5rem;justify-content:space-between;align-items:center;
padding:.75rem 0;border-bottom:1px solid #ddd;margin-bottom:1rem}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.2rem;margin:1.25rem 0 .5rem}h3{font-size:1rem;margin:1rem 0 .25rem}
code,pre{font:14px/1.4 ui-monospace,monospace}
pre{background:#f4f4f4;padding:.6rem;margin:.25rem 0;white-space:pre-wrap;overflow-wrap:anywhere}
p,li,td,dd,code{overflow-wrap:anywhere}
mark.hidden{background:#ffd54f;color:#000;border:1px solid #b26a00;border-radius:3px;padding:0 2px}
.error{background:#fde8e8;border-left:4px solid #c62828;padding:.6rem}
.note{background:#e8f4fd;border-left:4px solid #1565c0;padding:.6rem}
.warn{background:#fff4e0;border-left:4px solid #b26a00;padding:.6rem}
.muted{color:#555;font-size:.9rem}
.badge{display:inline-block;border-radius:3px;padding:0 .4rem;font-size:.85rem;border:1px solid #999}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.5rem 0}
dl.facts dt{font-weight:600}dl.facts dd{margin:0;min-width:0}
"""
BUTTON_STYLE = """
button{font:inherit;border-radius:6px;padding:.5rem 1.1rem;border:1px solid #777;background:#f4f4f4;cursor:pointer}
"""
PHONE_STYLE = """
body{padding:0 .6rem 1.5rem}
dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.4rem}
"""


def style_hash(style: str) -> str:
    """The CSP source that allows exactly `style` inline: `'sha256-…'`."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(style.encode()).digest()).decode() + "'"
