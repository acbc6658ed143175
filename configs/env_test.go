package configs

import (
	"strings"
	"testing"
)

// TestEnvNamesUnambiguous proves the single-underscore spelling names
// exactly one key for every key, and both spellings map back to the key.
func TestEnvNamesUnambiguous(t *testing.T) {
	s := newSchema()
	if len(s.flat) != len(s.leaves) {
		t.Fatalf("%d keys but %d distinct underscore spellings: two keys share an environment name", len(s.leaves), len(s.flat))
	}
	for _, key := range s.order {
		if strings.Contains(strings.ReplaceAll(key, ".", "_"), "__") {
			t.Errorf("key %q would read as a level separator", key)
		}
		if got, ok := s.envKey(EnvName(key)); !ok || got != key {
			t.Errorf("envKey(%s) = %q, %v; want %q", EnvName(key), got, ok, key)
		}
		double := envPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "__"))
		if got, ok := s.envKey(double); !ok || got != key {
			t.Errorf("envKey(%s) = %q, %v; want %q", double, got, ok, key)
		}
	}
}

func TestEnvName(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"exchange.clob_url", "MMBOT_EXCHANGE_CLOB_URL"},
		{"exchange.limits.post_order_burst.requests", "MMBOT_EXCHANGE_LIMITS_POST_ORDER_BURST_REQUESTS"},
		{"log.level", "MMBOT_LOG_LEVEL"},
	} {
		if got := EnvName(tc.key); got != tc.want {
			t.Errorf("EnvName(%q) = %s, want %s", tc.key, got, tc.want)
		}
	}
	s := newSchema()
	for _, name := range []string{"MMBOT_EXCHANGE_CLOB", "MMBOT_", "MMBOT_LOG__LEVEL__X", "MMBOT_EXCHANGE__CLOB__URL"} {
		if key, ok := s.envKey(name); ok {
			t.Errorf("envKey(%s) = %q, want no key", name, key)
		}
	}
}

func TestKeys(t *testing.T) {
	keys := Keys()
	if len(keys) < 100 {
		t.Fatalf("only %d keys", len(keys))
	}
	for _, want := range []string{"log.level", "exchange.limits.fill", "exchange.limits.data_trades.window", "account.api_key", "strategy.bands.levels", "backtest.taker_fee_bps"} {
		found := false
		for _, k := range keys {
			found = found || k == want
		}
		if !found {
			t.Errorf("Keys() lacks %s", want)
		}
	}
	keys[0] = "changed"
	if Keys()[0] == "changed" {
		t.Error("Keys returns shared state")
	}
}
