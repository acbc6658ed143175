// Package configs holds the daemon's configuration: the Config type, its
// defaults, loading from a TOML file, the environment and the command line,
// and validation.
//
// Sources are applied in this order, later ones winning key by key:
//
//  1. Defaults() — the only place where default values are written;
//  2. the TOML file (-c/--config or LoadOptions.File);
//  3. environment variables MMBOT_<KEY> (see docs/configuration.md for the
//     name mapping);
//  4. the named flags (--log-level, --log-format, --state-path), then each
//     --set key=value in command-line order.
//
// Every key of every source must be known: an unknown key is an error that
// names the key and the source it came from (file path, variable or flag).
// A value of the wrong type is an error naming the key and the source too.
// After decoding, Load runs Validate, which reports every problem of the
// whole configuration at once as a *ValidationError. LoadWithSources loads
// the same way and also says, key by key, which source set the effective
// value (mmbot config check prints it).
//
// Money and sizes are decimal.Decimal and are written as strings in TOML
// ("0.05"); integers are accepted as exact, TOML floats are refused because
// they are not. Durations are strings ("250ms"). Model parameters (gamma, k,
// fill fractions, rates) are float64.
//
// Secrets are never plain config values except account.api_key, which is a
// secret.Value and prints as [redacted]. The private key, the API secret,
// the passphrase and the keystore password are named by source (environment
// variable, file, systemd credential) and read with SecretRef.Read at the
// point of use. This package imports no other mmbot package except
// internal/secret.
package configs
