-- A client the admin registered beforehand with an MCP server's authorization server (issue 17 item
-- 3, MCP "Authorization": pre-registration), as `{client_id, client_secret?}` JSON; `client_secret`
-- is a `${secret:NAME}` reference resolved at connect time, never a value. NULL: dynamic registration.
ALTER TABLE mcp_servers ADD COLUMN oauth_client_json TEXT;
