"""The embedded backend's OpenAI-compatible HTTP API, laid out as vLLM's `entrypoints/openai`:
one subpackage per endpoint (`chat_completion/`, `models/`), each with its protocol and router,
an app factory, the request guard and the OpenAI error body. `pathwise serve --embedded` serves
it so that anything that talks to vLLM talks to it unchanged, or is told in one 400 what this
server does not do (docs/serving.md has the table, read from tests/serving/conformance/)."""
