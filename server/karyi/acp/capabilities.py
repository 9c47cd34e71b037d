"""What `initialize` answers: the protocol version, Karyi's capabilities and its sign-in
methods (docs/acp.md#what-karyi-answers). Every capability advertised here is one that
works; the table in docs/acp.md says what each one does in Karyi."""

from __future__ import annotations

from acp import PROTOCOL_VERSION
from acp.schema import (
    AgentAuthCapabilities,
    AgentCapabilities,
    AuthMethodAgent,
    ClientCapabilities,
    EnvVarAuthMethod,
    Implementation,
    InitializeResponse,
    LogoutCapabilities,
    McpCapabilities,
    PromptCapabilities,
    SessionAdditionalDirectoriesCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionDeleteCapabilities,
    SessionForkCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
    TerminalAuthMethod,
)

from karyi import __version__

SUPPORTED_VERSIONS = frozenset({PROTOCOL_VERSION})
KEY_METHOD = "api-key"
"""Sign-in with a key already in the environment or the keyring (`karyi var set`)."""
LOGIN_METHOD = "karyi-login"
"""Sign-in in a terminal the client opens: `karyi login` asks for the key (hidden)."""


AuthMethod = EnvVarAuthMethod | TerminalAuthMethod | AuthMethodAgent


def auth_methods(caps: ClientCapabilities) -> list[AuthMethod]:
    """The sign-in methods; the terminal one only for clients that run terminal auth."""
    methods: list[AuthMethod] = [
        AuthMethodAgent(
            id=KEY_METHOD,
            name="API key",
            description="Use the model's API key from the environment (OPENAI_API_KEY, "
            "ANTHROPIC_API_KEY, KARYI_API_KEY, …) or the keyring (`karyi var set`)",
        )
    ]
    if caps.auth is not None and caps.auth.terminal:
        methods.append(
            TerminalAuthMethod(
                type="terminal",
                id=LOGIN_METHOD,
                name="Log in with an API key",
                description="Enter the key in a terminal; it is kept in the OS keyring",
                args=["login"],
            )
        )
    return methods


def shows_booleans(caps: ClientCapabilities) -> bool:
    """Whether the client shows boolean config options
    (`clientCapabilities.session.configOptions.boolean`, schema 1.18): Karyi offers one
    only then, as the schema asks."""
    options = caps.session.config_options if caps.session is not None else None
    return options is not None and options.boolean is not None


def initialize_response(
    requested: int, caps: ClientCapabilities, *, image: bool
) -> InitializeResponse:
    """The client's version when Karyi speaks it (else its latest), and Karyi's side."""
    version = requested if requested in SUPPORTED_VERSIONS else PROTOCOL_VERSION
    sessions = SessionCapabilities(
        list=SessionListCapabilities(),
        resume=SessionResumeCapabilities(),
        close=SessionCloseCapabilities(),
        delete=SessionDeleteCapabilities(),
        fork=SessionForkCapabilities(),
        additional_directories=SessionAdditionalDirectoriesCapabilities(),
    )
    return InitializeResponse(
        protocol_version=version,
        agent_capabilities=AgentCapabilities(
            load_session=True,
            prompt_capabilities=PromptCapabilities(image=image, audio=False, embedded_context=True),
            mcp_capabilities=McpCapabilities(http=True, sse=True),
            session_capabilities=sessions,
            auth=AgentAuthCapabilities(logout=LogoutCapabilities()),
        ),
        agent_info=Implementation(name="karyi", title="Karyi", version=__version__),
        auth_methods=auth_methods(caps),
    )
