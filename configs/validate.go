package configs

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/internal/secret"
)

// Problem is one broken rule: the key, its value as written in the message
// (a secret as [redacted]) and the rule.
type Problem struct {
	Key   string
	Value string
	Rule  string
}

func (p Problem) String() string {
	return secret.Scrub(quoteKey(p.Key) + " = " + p.Value + ": " + p.Rule)
}

// quote quotes a value for a message, or redacts it when it looks like a
// secret (a private key, an API secret or key, a passphrase), whatever key
// it was given for: "[redacted: looks like a private key ...]".
func quote(s string) string {
	if secret.Looks(s) != "" {
		return secret.Mask(s)
	}
	return strconv.Quote(s)
}

// quoteKey is a key as written in a message: as it is, unless the key
// itself looks like a secret (a value given as a key, "--set 0x...").
func quoteKey(k string) string {
	if secret.Looks(k) != "" {
		return secret.Mask(k)
	}
	return k
}

// ValidationError lists every problem of a configuration at once.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid configuration (%d problem", len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteString("s")
	}
	b.WriteString("):")
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Validate checks every field and every rule between fields, and returns a
// *ValidationError with all problems, or nil.
func (c *Config) Validate() error {
	v := &validator{}
	c.Log.validate(v)
	c.Exchange.validate(v, c.Account.CredentialsFile)
	c.Account.validate(v)
	c.Markets.validate(v)
	c.Strategy.validate(v, c.Risk)
	c.Risk.validate(v)
	c.State.validate(v, c.Exchange)
	c.Metrics.validate(v)
	c.Shutdown.validate(v)
	c.Sim.validate(v)
	c.Backtest.validate(v)
	if len(v.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: v.problems}
}

// validator collects problems.
type validator struct {
	problems []Problem
}

// check records a problem with key when ok is false.
func (v *validator) check(ok bool, key string, value any, rule string, args ...any) {
	if !ok {
		v.problems = append(v.problems, Problem{Key: key, Value: formatValue(value), Rule: fmt.Sprintf(rule, args...)})
	}
}

// formatValue writes a value as it would appear in TOML; secrets are never
// written, nor the password of a URL (user:password@host).
func formatValue(x any) string {
	switch t := x.(type) {
	case secret.Value:
		if t.IsZero() {
			return `""`
		}
		return secret.Redacted
	case string:
		if secret.Looks(t) != "" {
			return secret.Mask(t)
		}
		if u, err := url.Parse(t); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				return strconv.Quote(u.Redacted())
			}
		}
		return strconv.Quote(t)
	case Duration:
		return strconv.Quote(t.String())
	case decimal.Decimal:
		return strconv.Quote(t.String())
	case []string:
		parts := make([]string, len(t))
		for i, s := range t {
			parts[i] = quote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []BandLevel:
		parts := make([]string, len(t))
		for i, l := range t {
			parts[i] = fmt.Sprintf("{offset = %s, size = %s}", quote(l.Offset.String()), quote(l.Size.String()))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(x)
}

// Checks shared by the sections.

func oneOf(s string, allowed ...string) bool {
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	return false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// isAddress reports 0x + 40 hex digits (any case; the signer checks the
// EIP-55 checksum where it matters).
func isAddress(s string) bool {
	return len(s) == 42 && strings.HasPrefix(s, "0x") && isHex(s[2:])
}

// isBytes32 reports 0x + 64 hex digits.
func isBytes32(s string) bool {
	return len(s) == 66 && strings.HasPrefix(s, "0x") && isHex(s[2:])
}

// isUUID reports the canonical 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return false
			}
		} else if !isHex(s[i : i+1]) {
			return false
		}
	}
	return true
}

// isEnvName reports a POSIX environment variable name; empty is allowed
// (the source is off).
func isEnvName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// httpURL checks an absolute http or https URL with a host and no query or
// fragment.
func httpURL(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "must be a URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return "must be an http:// or https:// URL"
	case u.Host == "":
		return "must name a host"
	case u.RawQuery != "" || u.Fragment != "":
		return "must have no query or fragment"
	}
	return ""
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

var one = decimal.NewFromInt(1)
