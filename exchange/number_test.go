package exchange

import (
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"
)

var numberCases = []struct {
	in      string
	want    string // decimal value; "" when decoding must fail
	encoded string // MarshalJSON output
}{
	{`0`, "0", `0`},
	{`12.5`, "12.5", `12.5`},
	{`-0.001`, "-0.001", `-0.001`},
	{`1e-3`, "0.001", `0.001`},
	{`1.41e2`, "141", `141`},
	{`"0.470000"`, "0.47", `0.47`},
	{`"42"`, "42", `42`},
	{`""`, "0", `0`},
	{`null`, "0", `0`},
	{`"abc"`, "", ""},
	{`"1.2.3"`, "", ""},
	{`true`, "", ""},
	{`[1]`, "", ""},
	{`{"a":1}`, "", ""},
	{`"\u0031"`, "1", `1`},
	{`123456789012345678901234567890.123456789`, "123456789012345678901234567890.123456789", `123456789012345678901234567890.123456789`},
}

func TestNumber(t *testing.T) {
	for _, tt := range numberCases {
		var n Number
		err := json.Unmarshal([]byte(tt.in), &n)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: decoded to %s, want an error", tt.in, n)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if !n.Equal(decimal.RequireFromString(tt.want)) {
			t.Errorf("%s: got %s, want %s", tt.in, n, tt.want)
		}
		b, err := json.Marshal(n)
		if err != nil || string(b) != tt.encoded {
			t.Errorf("%s: encoded %s, %v; want %s", tt.in, b, err, tt.encoded)
		}
	}
	// inside a struct, absent keeps zero and the field encodes unquoted
	var s struct {
		A Number `json:"a"`
		B Number `json:"b"`
	}
	if err := json.Unmarshal([]byte(`{"b":"2.50"}`), &s); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(s); string(b) != `{"a":0,"b":2.5}` {
		t.Errorf("struct encoding %s", b)
	}
	if NewNumber(decimal.NewFromInt(3)).Dec().String() != "3" || MustNumber("0.25").String() != "0.25" {
		t.Error("constructors")
	}
}

func FuzzNumber(f *testing.F) {
	for _, tt := range numberCases {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var n Number
		if err := n.UnmarshalJSON(data); err != nil {
			return
		}
		b, err := json.Marshal(n)
		if err != nil {
			t.Fatalf("marshal %s: %v", n, err)
		}
		var back Number
		if err := json.Unmarshal(b, &back); err != nil || !back.Equal(n.Decimal) {
			t.Fatalf("%q → %s → %s (%v)", data, b, back, err)
		}
	})
}
