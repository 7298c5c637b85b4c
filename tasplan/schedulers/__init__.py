"""Schedulers side by side behind one interface: each package models one."""
