"""Renderers: they select and format results, never compute them."""
