"""The models an OpenAI-compatible server lists at `GET /models` (Ollama, vLLM,
llama.cpp, LM Studio, OpenAI itself), read through the `openai` SDK.

The editor's model picker offers them beside the ones in the settings. The request has
a short timeout and no retries: a server that is down or slow costs the picker a
moment, not a hang, and its failure is a one-line reason, never an exception.
"""

from __future__ import annotations

from karyi.llm.endpoint import Endpoint
from karyi.llm.tls import sdk_http_client

LIST_TIMEOUT = 3.0
"""Seconds the picker waits for a server's model list."""


async def list_models(endpoint: Endpoint) -> tuple[list[str], str]:
    """The model ids `endpoint`'s server lists (sorted), and why none when it failed."""
    import openai  # the SDK (hundreds of modules) loads when first asked, not with the host

    timeout = LIST_TIMEOUT
    client = openai.AsyncOpenAI(
        api_key=endpoint.api_key,
        base_url=endpoint.base_url,
        timeout=openai.Timeout(timeout, connect=timeout),
        max_retries=0,
        default_headers=dict(endpoint.headers) or None,
        http_client=sdk_http_client(openai.DefaultAsyncHttpxClient),
    )
    try:
        page = await client.models.list()
        return sorted({m.id for m in page.data if m.id}), ""
    except openai.APIStatusError as exc:
        return [], f"{endpoint.base_url}/models answered HTTP {exc.status_code}"
    except openai.APITimeoutError:
        return [], f"{endpoint.base_url}/models did not answer within {timeout:g} s"
    except openai.OpenAIError as exc:
        return [], f"{endpoint.base_url}/models failed: {type(exc).__name__}"
    finally:
        await client.close()
