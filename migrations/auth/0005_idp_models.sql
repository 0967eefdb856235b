-- Auth service, issue 15 item 1: the embedded OpenID Connect provider's models (oidc-provider adapter).
-- One table for every model kind (Session, Interaction, AuthorizationCode, AccessToken, RefreshToken,
-- ClientCredentials, Grant, ... and our own LoginContext): the payload is the model's JSON as the
-- provider gives it; grant_id, uid and user_code are lifted out for the adapter's lookups.
CREATE TABLE idp_models (
  model        TEXT NOT NULL,                            -- oidc-provider model name
  id           TEXT NOT NULL,                            -- the model's id (jti, uid, grant id)
  payload      TEXT NOT NULL CHECK (json_valid(payload)),
  grant_id     TEXT,
  uid          TEXT,
  user_code    TEXT,
  expires_at   INTEGER,                                  -- Unix ms; NULL: no expiry
  consumed_at  INTEGER,                                  -- Unix seconds when consumed (codes, refresh tokens)
  PRIMARY KEY (model, id)
) STRICT;
CREATE INDEX idp_models_grant ON idp_models (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX idp_models_uid ON idp_models (model, uid) WHERE uid IS NOT NULL;
CREATE INDEX idp_models_user_code ON idp_models (model, user_code) WHERE user_code IS NOT NULL;
CREATE INDEX idp_models_expires ON idp_models (expires_at) WHERE expires_at IS NOT NULL;
