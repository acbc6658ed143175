package configs

import (
	"strings"
	"time"
)

func (l Log) validate(v *validator) {
	v.check(oneOf(l.Level, "trace", "debug", "info", "warn", "error"), "log.level", l.Level, "must be trace, debug, info, warn or error")
	v.check(oneOf(l.Format, "auto", "json", "console"), "log.format", l.Format, "must be auto, json or console")
}

// validate checks [exchange]; credentialsFile is account.credentials_file,
// whose URLs stand in for empty ones (mmbot sim writes them there).
func (e Exchange) validate(v *validator, credentialsFile string) {
	for _, u := range []struct{ key, val string }{
		{"exchange.data_url", e.DataURL},
		{"exchange.catalog_url", e.CatalogURL},
		{"exchange.clob_url", e.CLOBURL},
	} {
		switch {
		case u.val == "":
			v.check(e.EmbeddedSim || credentialsFile != "", u.key, u.val,
				"required unless exchange.embedded_sim = true or account.credentials_file names a file that holds it")
		case !e.EmbeddedSim:
			rule := httpURL(u.val)
			v.check(rule == "", u.key, u.val, "%s", rule)
		}
	}
	v.check(e.ChainID > 0, "exchange.chain_id", e.ChainID, "must be > 0")
	v.check(isAddress(e.ExchangeAddress), "exchange.exchange_address", e.ExchangeAddress, "must be a 0x address (40 hex digits)")
	v.check(isAddress(e.NegRiskExchangeAddress), "exchange.neg_risk_exchange_address", e.NegRiskExchangeAddress, "must be a 0x address (40 hex digits)")
	v.check(!strings.EqualFold(e.ExchangeAddress, e.NegRiskExchangeAddress), "exchange.neg_risk_exchange_address", e.NegRiskExchangeAddress, "must differ from exchange.exchange_address")
	v.check(e.DomainName != "", "exchange.domain_name", e.DomainName, "must not be empty")
	v.check(e.DomainVersion != "", "exchange.domain_version", e.DomainVersion, "must not be empty")
	v.check(e.RequestTimeout > 0, "exchange.request_timeout", e.RequestTimeout, "must be > 0")
	v.check(e.MaxBatch >= 1 && e.MaxBatch <= MaxBatchCap, "exchange.max_batch", e.MaxBatch, "must be in 1..%d", MaxBatchCap)
	v.check(e.AuthWindow > 0, "exchange.auth_window", e.AuthWindow, "must be > 0")
	v.check(e.MaxRetryAfter > 0 && e.MaxRetryAfter <= Duration(time.Hour), "exchange.max_retry_after", e.MaxRetryAfter, "must be in (0, 1h]")
	e.Limits.validate(v)
	r := e.Retry
	v.check(r.MaxAttempts >= 1 && r.MaxAttempts <= 20, "exchange.retry.max_attempts", r.MaxAttempts, "must be in 1..20")
	v.check(r.BaseDelay > 0, "exchange.retry.base_delay", r.BaseDelay, "must be > 0")
	v.check(r.MaxDelay >= r.BaseDelay, "exchange.retry.max_delay", r.MaxDelay, "must be >= exchange.retry.base_delay (%s)", r.BaseDelay)
	s := e.StartRetry
	v.check(s.BaseDelay > 0, "exchange.start_retry.base_delay", s.BaseDelay, "must be > 0")
	v.check(s.MaxDelay >= s.BaseDelay, "exchange.start_retry.max_delay", s.MaxDelay, "must be >= exchange.start_retry.base_delay (%s)", s.BaseDelay)
	v.check(s.GiveUpAfter >= 0, "exchange.start_retry.give_up_after", s.GiveUpAfter, "must be >= 0 (0: never give up)")
}

func (l Limits) validate(v *validator) {
	v.check(finite(l.Fill) && l.Fill > 0 && l.Fill <= 1, "exchange.limits.fill", l.Fill, "must be in (0, 1]")
	for _, r := range []struct {
		name string
		lim  RateLimit
	}{
		{"catalog_general", l.CatalogGeneral},
		{"catalog_events", l.CatalogEvents},
		{"catalog_markets", l.CatalogMarkets},
		{"catalog_events_markets", l.CatalogEventsMarkets},
		{"catalog_tags", l.CatalogTags},
		{"clob_general", l.CLOBGeneral},
		{"clob_books", l.CLOBBooks},
		{"post_order_burst", l.PostOrderBurst},
		{"post_order_sustained", l.PostOrderSustained},
		{"delete_order_burst", l.DeleteOrderBurst},
		{"delete_order_sustained", l.DeleteOrderSustained},
		{"data_general", l.DataGeneral},
		{"data_trades", l.DataTrades},
	} {
		key := "exchange.limits." + r.name
		v.check(r.lim.Requests >= 1, key+".requests", r.lim.Requests, "must be >= 1")
		v.check(r.lim.Window > 0, key+".window", r.lim.Window, "must be > 0")
	}
}

func (a Account) validate(v *validator) {
	v.check(a.SignatureType >= 0 && a.SignatureType <= 3, "account.signature_type", a.SignatureType, "must be 0 (EOA), 1 (proxy), 2 (Safe) or 3 (deposit wallet)")
	switch {
	case a.SignatureType >= 1 && a.SignatureType <= 3:
		v.check(isAddress(a.Funder), "account.funder", a.Funder, "must be a 0x address (40 hex digits) for signature_type %d", a.SignatureType)
	case a.SignatureType == 0:
		v.check(a.Funder == "", "account.funder", a.Funder, "must be empty for signature_type 0 (the maker is the key's address)")
	}
	for _, e := range []struct{ key, val string }{
		{"account.private_key_env", a.PrivateKeyEnv},
		{"account.keystore_password_env", a.KeystorePasswordEnv},
		{"account.api_secret_env", a.APISecretEnv},
		{"account.passphrase_env", a.PassphraseEnv},
	} {
		v.check(isEnvName(e.val), e.key, e.val, "must be an environment variable name (letters, digits, _) or empty")
	}
	v.check(a.PrivateKeyFile == "" || a.KeystoreFile == "", "account.keystore_file", a.KeystoreFile, "set either account.private_key_file or account.keystore_file, not both")
	if a.KeystoreFile != "" {
		v.check(a.KeystorePasswordFile != "" || a.KeystorePasswordEnv != "", "account.keystore_password_file", a.KeystorePasswordFile, "a keystore needs keystore_password_file or keystore_password_env")
	}
	for _, c := range []struct{ key, val string }{
		{"account.credential_name", a.CredentialName},
		{"account.api_secret_credential", a.APISecretCredential},
		{"account.passphrase_credential", a.PassphraseCredential},
	} {
		v.check(!strings.ContainsAny(c.val, "/\x00") && c.val != "." && c.val != "..", c.key, c.val, "must be a systemd credential name (no /) or empty")
	}
	v.check(a.APIKey.IsZero() || isUUID(a.APIKey.Reveal()), "account.api_key", a.APIKey, "must be a UUID (8-4-4-4-12 hex digits)")
	if a.CredentialsFile != "" {
		v.check(a.APIKey.IsZero(), "account.api_key", a.APIKey, "must be empty when account.credentials_file is set (one source of API credentials)")
		v.check(a.APISecretFile == "", "account.api_secret_file", a.APISecretFile, "must be empty when account.credentials_file is set")
		v.check(a.PassphraseFile == "", "account.passphrase_file", a.PassphraseFile, "must be empty when account.credentials_file is set")
	}
	v.check(a.BuilderCode == "" || isBytes32(a.BuilderCode), "account.builder_code", a.BuilderCode, "must be empty or 0x + 64 hex digits")
	v.check(a.Metadata == "" || isBytes32(a.Metadata), "account.metadata", a.Metadata, "must be empty or 0x + 64 hex digits")
}
