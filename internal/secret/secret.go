package secret

import (
	"fmt"

	"github.com/rs/zerolog"
)

// Redacted is what every printing path of a Value produces.
const Redacted = "[redacted]"

// Value is a secret string. The zero Value is empty.
type Value struct {
	v string
}

// New wraps s.
func New(s string) Value { return Value{v: s} }

// Reveal returns the secret itself. Use it only where the secret is consumed
// (HMAC keys, key parsing), never to print.
func (s Value) Reveal() string { return s.v }

// IsZero reports whether the secret is empty.
func (s Value) IsZero() bool { return s.v == "" }

// String implements fmt.Stringer.
func (s Value) String() string { return Redacted }

// GoString implements fmt.GoStringer (%#v).
func (s Value) GoString() string { return Redacted }

// Format implements fmt.Formatter so that every verb (%s %v %q %x %d ...) is
// redacted.
func (s Value) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(Redacted)) }

// MarshalJSON implements json.Marshaler.
func (s Value) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// MarshalText implements encoding.TextMarshaler (TOML, YAML, koanf dumps).
func (s Value) MarshalText() ([]byte, error) { return []byte(Redacted), nil }

// UnmarshalText implements encoding.TextUnmarshaler so that config decoding
// can fill a Value directly.
func (s *Value) UnmarshalText(b []byte) error {
	s.v = string(b)
	return nil
}

// MarshalZerologObject implements zerolog.LogObjectMarshaler.
func (s Value) MarshalZerologObject(e *zerolog.Event) { e.Str("secret", Redacted) }
