"""The reference web client at /play/ (issue 16): server-rendered page shells whose JavaScript
plays through the public API only, like any third-party client."""
