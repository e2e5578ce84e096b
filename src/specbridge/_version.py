"""The version of specbridge (a ground module: every layer may say it, none imports the package face)."""

__version__ = "0.1.0"
