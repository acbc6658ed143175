package logging

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/internal/secret"
)

// setSecrets sets every secret.Value field of v (a struct, recursively) to a
// recognisable value and returns those values.
func setSecrets(v reflect.Value, path string) []string {
	var set []string
	secretType := reflect.TypeFor[secret.Value]()
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == secretType {
			s := "LEAKED-" + strings.ReplaceAll(path, ".", "-") + "-7f3a9c"
			v.Set(reflect.ValueOf(secret.New(s)))
			return []string{s}
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				set = append(set, setSecrets(v.Field(i), path+"."+v.Type().Field(i).Name)...)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			set = append(set, setSecrets(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return set
}

// TestConfigSecretsNeverLogged logs a configuration whose every secret is
// set, through every path a developer might use, and finds none of them.
func TestConfigSecretsNeverLogged(t *testing.T) {
	cfg := configs.Defaults()
	secrets := setSecrets(reflect.ValueOf(&cfg).Elem(), "cfg")
	if len(secrets) == 0 {
		t.Fatal("Config has no secret fields: the test would prove nothing")
	}
	var outs []string
	for _, format := range []string{"json", "console"} {
		var buf bytes.Buffer
		log, err := New(Options{Out: &buf, Format: format, Level: "trace"})
		if err != nil {
			t.Fatal(err)
		}
		log.Info().Interface("config", cfg).Msg("loaded")
		log.Info().Interface("account", cfg.Account).Interface("ptr", &cfg).Send()
		log.Debug().Msgf("%v | %+v | %#v | %v", cfg, cfg, cfg, cfg.Account)
		log.Error().Err(fmt.Errorf("bad account %+v", cfg.Account)).Send()
		outs = append(outs, buf.String())
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	js2, err := json.MarshalIndent(&cfg, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(js), string(js2),
		fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%+v", &cfg))
	for i, out := range outs {
		for _, s := range secrets {
			if strings.Contains(out, s) || strings.Contains(out, "7f3a9c") {
				t.Errorf("output %d shows secret %s:\n%s", i, s, out)
			}
		}
		if !strings.Contains(out, secret.Redacted) {
			t.Errorf("output %d does not say %s:\n%.300s", i, secret.Redacted, out)
		}
	}
}
