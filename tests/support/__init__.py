"""Helpers the tests share: fixtures, stub servers, builders and checks. Never a test file."""
