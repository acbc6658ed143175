package secret

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestNeverPrinted(t *testing.T) {
	const raw = "0xdeadbeefcafe-super-secret"
	s := New(raw)
	if s.Reveal() != raw {
		t.Fatalf("Reveal = %q", s.Reveal())
	}
	type holder struct {
		Key  Value
		Ptr  *Value
		Name string
	}
	h := holder{Key: s, Ptr: &s, Name: "x"}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10s"} {
		outs = append(outs, fmt.Sprintf(verb, s), fmt.Sprintf(verb, h))
	}
	outs = append(outs, s.String(), s.GoString(), fmt.Sprint(s), fmt.Sprintln(s))
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(js))
	txt, _ := s.MarshalText()
	outs = append(outs, string(txt))
	outs = append(outs, fmt.Errorf("wrapped: %w", errors.New(fmt.Sprint(s))).Error())

	var buf bytes.Buffer
	log := zerolog.New(&buf)
	log.Info().Object("key", s).Interface("holder", h).Str("s", s.String()).Stringer("st", s).Msgf("%v %s", s, h)
	log.Error().Err(fmt.Errorf("bad key %v", s)).Send()
	outs = append(outs, buf.String())

	for i, o := range outs {
		if strings.Contains(o, raw) || strings.Contains(o, "deadbeef") {
			t.Errorf("output %d leaks the secret: %s", i, o)
		}
		if !strings.Contains(o, Redacted) {
			t.Errorf("output %d does not say %s: %s", i, Redacted, o)
		}
	}
}

func TestUnmarshalText(t *testing.T) {
	var s Value
	if !s.IsZero() {
		t.Fatal("zero value not empty")
	}
	if err := s.UnmarshalText([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if s.Reveal() != "abc" || s.IsZero() {
		t.Fatalf("got %q", s.Reveal())
	}
}
