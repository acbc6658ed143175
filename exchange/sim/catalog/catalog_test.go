package catalog

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestGenerateDeterministic(t *testing.T) {
	for _, n := range []int{1, 2, 7, 50, 300} {
		a, err := Generate(42, n, base)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Generate(42, n, base)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("n=%d: two generations from one seed differ", n)
		}
		if len(a.Markets) != n {
			t.Fatalf("n=%d: got %d markets", n, len(a.Markets))
		}
		c, err := Generate(43, n, base)
		if err != nil {
			t.Fatal(err)
		}
		if c.Markets[0].ConditionID == a.Markets[0].ConditionID || c.Markets[0].TokenIDs == a.Markets[0].TokenIDs {
			t.Fatalf("n=%d: another seed gave the same ids", n)
		}
	}
}

func TestGenerateProperties(t *testing.T) {
	c, err := Generate(7, 400, base)
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewIndex(c)
	if err != nil {
		t.Fatal(err)
	}
	ticks := map[string]int{}
	negRisk, closed := 0, 0
	for _, m := range c.Markets {
		ticks[m.TickSize.String()]++
		if !strings.HasPrefix(m.ConditionID, "0x") || len(m.ConditionID) != 66 {
			t.Errorf("condition id %q", m.ConditionID)
		}
		for _, tok := range m.TokenIDs {
			if tok == "" || strings.Trim(tok, "0123456789") != "" {
				t.Errorf("token id %q is not decimal", tok)
			}
		}
		if m.Rewards.MinSize.LessThan(m.MinOrderSize) || !m.Rewards.MaxSpread.IsPositive() {
			t.Errorf("market %d rewards %+v min size %s", m.ID, m.Rewards, m.MinOrderSize)
		}
		if m.InitialPrice.LessThan(m.TickSize) || m.InitialPrice.GreaterThan(decimal.NewFromInt(1).Sub(m.TickSize)) {
			t.Errorf("market %d initial price %s tick %s", m.ID, m.InitialPrice, m.TickSize)
		}
		e, ok := x.EventByID(m.EventID)
		if !ok {
			t.Fatalf("market %d: no event", m.ID)
		}
		if m.NegRisk != e.NegRisk || (m.NegRisk && len(e.MarketIDs) < 3) {
			t.Errorf("market %d neg risk %v, event has %d markets", m.ID, m.NegRisk, len(e.MarketIDs))
		}
		if m.NegRisk {
			negRisk++
		}
		if m.Closed {
			closed++
			if m.Winner < 0 || !m.EndDate.Before(base) {
				t.Errorf("closed market %d winner %d end %v", m.ID, m.Winner, m.EndDate)
			}
		} else if m.Winner != -1 || !m.EndDate.After(base) {
			t.Errorf("open market %d winner %d end %v", m.ID, m.Winner, m.EndDate)
		}
		if got, _, ok := x.MarketByToken(m.TokenIDs[1]); !ok || got.ID != m.ID {
			t.Errorf("token lookup of market %d", m.ID)
		}
		if got, ok := x.MarketByCondition(strings.ToUpper(m.ConditionID)); !ok || got.ID != m.ID {
			t.Errorf("condition lookup of market %d", m.ID)
		}
	}
	for _, tk := range []string{"0.1", "0.01", "0.001", "0.0001"} {
		if ticks[tk] == 0 {
			t.Errorf("no market with tick %s: %v", tk, ticks)
		}
	}
	if negRisk == 0 || closed == 0 {
		t.Errorf("neg risk %d closed %d", negRisk, closed)
	}
	creators := map[string]int{}
	for _, e := range c.Events {
		creators[e.Creator]++
	}
	for _, cr := range Creators(7) {
		if creators[cr] == 0 {
			t.Errorf("creator %s has no events", cr)
		}
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	c, err := Generate(3, 25, base)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cat.json")
	if err := SaveFile(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(c)
	jb, _ := json.Marshal(got)
	if !bytes.Equal(ja, jb) {
		t.Fatal("round trip changed the catalog")
	}
}

func TestLoadRejects(t *testing.T) {
	good, err := Generate(3, 3, base)
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(c *Catalog)) string {
		b, _ := json.Marshal(good)
		var c Catalog
		_ = json.Unmarshal(b, &c)
		f(&c)
		out, _ := json.Marshal(&c)
		return string(out)
	}
	tests := []struct {
		name, in, want string
	}{
		{"not json", "{", "decoding"},
		{"unknown field", `{"tags":[],"bogus":1}`, "unknown field"},
		{"bad tick", mutate(func(c *Catalog) { c.Markets[0].TickSize = decimal.RequireFromString("0.05") }), "tick size"},
		{"dup token", mutate(func(c *Catalog) { c.Markets[1].TokenIDs[0] = c.Markets[0].TokenIDs[0] }), "duplicate token"},
		{"same tokens", mutate(func(c *Catalog) { c.Markets[0].TokenIDs[1] = c.Markets[0].TokenIDs[0] }), "token ids"},
		{"dup condition", mutate(func(c *Catalog) { c.Markets[1].ConditionID = c.Markets[0].ConditionID }), "duplicate condition"},
		{"unknown event", mutate(func(c *Catalog) { c.Markets[0].EventID = 1 }), "unknown event"},
		{"min size precision", mutate(func(c *Catalog) { c.Markets[0].MinOrderSize = decimal.RequireFromString("0.001") }), "minimum order size"},
		{"price out of range", mutate(func(c *Catalog) { c.Markets[0].InitialPrice = decimal.NewFromInt(1) }), "initial price"},
		{"unknown tag", mutate(func(c *Catalog) { c.Events[0].TagIDs = []int64{1} }), "unknown tag"},
		{"winner", mutate(func(c *Catalog) { c.Markets[0].Winner = 2 }), "winner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want containing %q", err, tt.want)
			}
		})
	}
}

func TestVisible(t *testing.T) {
	e := &Event{Creator: "0xAbC"}
	for creator, want := range map[string]bool{"": true, "0xabc": true, "0xABC": true, "other": false} {
		if got := Visible(e, creator); got != want {
			t.Errorf("Visible(%q) = %v", creator, got)
		}
	}
}

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{"Will X win?": "will-x-win", "  A--b  ": "a-b", "Otters vs. Comets": "otters-vs-comets", "": ""} {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzLoad(f *testing.F) {
	good, _ := Generate(1, 2, base)
	b, _ := json.Marshal(good)
	f.Add(string(b))
	f.Add(`{"tags":[{"id":1}]}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Load(strings.NewReader(in))
		if err != nil {
			return
		}
		if _, err := NewIndex(c); err != nil {
			t.Fatalf("Load accepted a catalog NewIndex rejects: %v", err)
		}
	})
}
