"""The only package that knows file formats and API versions."""
