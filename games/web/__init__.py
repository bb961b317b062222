"""The reference web client at /play/ (docs/web-client.md): server-rendered page shells whose JavaScript
plays through the public API only, like any third-party client."""
