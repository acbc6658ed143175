package configs

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
)

// exampleNotDefault are the keys whose example value is not the default;
// the example's comments say so for each.
var exampleNotDefault = map[string]bool{
	"exchange.data_url":    true,
	"exchange.catalog_url": true,
	"exchange.clob_url":    true,
	"markets.auto.enabled": true,
}

func TestExampleLoadsAndValidates(t *testing.T) {
	c, err := loadBytes("mmbot.example.toml", Example(), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestExampleHasEveryKey: the example writes every key of Config, and no
// other.
func TestExampleHasEveryKey(t *testing.T) {
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider(Example()), toml.Parser()); err != nil {
		t.Fatal(err)
	}
	inExample := map[string]bool{}
	for _, key := range k.Keys() {
		inExample[key] = true
	}
	s := newSchema()
	for _, key := range s.order {
		if !inExample[key] {
			t.Errorf("example lacks %s", key)
		}
	}
	for key := range inExample {
		if s.leaves[key] == nil {
			t.Errorf("example has %s, which is no key", key)
		}
	}
}

// TestExampleShowsDefaults: every value in the example is the default,
// except the documented few.
func TestExampleShowsDefaults(t *testing.T) {
	c, err := loadBytes("mmbot.example.toml", Example(), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := Defaults()
	s := newSchema()
	ex, def := reflect.ValueOf(c).Elem(), reflect.ValueOf(&d).Elem()
	for _, key := range s.order {
		l := s.leaves[key]
		got, want := formatValue(ex.FieldByIndex(l.index).Interface()), formatValue(def.FieldByIndex(l.index).Interface())
		if exampleNotDefault[key] {
			if got == want {
				t.Errorf("%s is listed as not default but is %s", key, got)
			}
			continue
		}
		if got != want {
			t.Errorf("example %s = %s, default %s", key, got, want)
		}
	}
}

func TestExampleIsACopy(t *testing.T) {
	a := Example()
	a[0] = '!'
	if Example()[0] == '!' {
		t.Fatal("Example returns the embedded bytes themselves")
	}
}

func TestDemo(t *testing.T) {
	c, err := Load(LoadOptions{File: "demo.toml"})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Exchange.EmbeddedSim {
		t.Error("demo does not use the embedded simulator")
	}
	if !c.Markets.Auto.Enabled || c.Markets.Auto.MaxMarkets < 3 || c.Markets.Auto.MaxMarkets > 5 {
		t.Errorf("demo selects markets %+v, want 3-5 auto-selected", c.Markets.Auto)
	}
	if c.Sim.Markets < c.Markets.Auto.MaxMarkets {
		t.Errorf("demo simulates %d markets for %d quoted", c.Sim.Markets, c.Markets.Auto.MaxMarkets)
	}
	if c.Strategy.Model != "bands" && c.Strategy.Model != "avellaneda" {
		t.Errorf("demo model %s", c.Strategy.Model)
	}
}

// TestDocsListEveryKey: docs/configuration.md names every key (a rate
// limit by its table, exchange.limits.<name>).
func TestDocsListEveryKey(t *testing.T) {
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, key := range Keys() {
		if strings.Contains(doc, "`"+key+"`") {
			continue
		}
		if i := strings.LastIndexByte(key, '.'); strings.HasPrefix(key, "exchange.limits.") && strings.Contains(doc, "`"+key[:i]+"`") {
			continue
		}
		t.Errorf("docs/configuration.md does not describe `%s`", key)
	}
}
