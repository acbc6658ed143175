package configs

import (
	"errors"
	"os"
	"testing"

	"github.com/spf13/pflag"
)

// fuzzSeeds are TOML documents from the tests: valid ones and each kind of
// error. The full example is left out: it is large, and the fuzzer spends
// its time minimising mutations of it; the demo covers the same paths.
func fuzzSeeds(t interface{ Fatal(...any) }) [][]byte {
	demo, err := os.ReadFile("demo.toml")
	if err != nil {
		t.Fatal(err)
	}
	seeds := [][]byte{demo, []byte(minimal), []byte("")}
	for _, s := range []string{
		"[exchang]\nclob_url = \"http://x\"\n",
		"[log.level]\nx = 1\n",
		"exchange = 5\n",
		"[strategy.bands]\nlevels = [{ offset = \"0.01\", sise = \"2\" }]\n",
		"[strategy]\ncycle = 10\n",
		"[risk]\nmax_position = 10.5\n",
		"[log]\nlevel = \"info\"\nlevel = \"warn\"\n",
		"[account]\napi_key = 12345\n",
		"[markets]\ncondition_ids = [1, 2]\nslugs = \"a,b\"\n",
		"[sim]\nseed = 1979-05-27\n",
	} {
		seeds = append(seeds, []byte(minimal+s), []byte(s))
	}
	return seeds
}

// FuzzLoad: any bytes either load into a configuration that validates, or
// give an error; never a panic.
func FuzzLoad(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := loadBytes("fuzz.toml", b, LoadOptions{})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Load accepted a configuration that does not validate: %v", err)
		}
	})
}

// FuzzSet: any --set key=value and any MMBOT_ variable either load or give
// an error naming its source; never a panic.
func FuzzSet(f *testing.F) {
	for _, kv := range [][2]string{
		{"strategy.cycle", "2s"}, {"risk.max_position", "10.5"}, {"strategy.bands.levels", `[{offset="0.01",size="1"}]`},
		{"markets.slugs", "a,b"}, {"exchange.max_batch", "x"}, {"nope", "1"}, {"log.level.x", "1"}, {"log", "x"},
	} {
		f.Add(kv[0], kv[1])
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		fs := pflag.NewFlagSet("fuzz", pflag.ContinueOnError)
		RegisterFlags(fs)
		if err := fs.Parse([]string{"--set", key + "=" + value}); err != nil {
			return
		}
		env := []string{EnvName(key) + "=" + value, "MMBOT_" + key + "=" + value}
		for _, opts := range []LoadOptions{{Flags: fs}, {Environ: env}} {
			_, err := loadBytes("fuzz.toml", []byte(minimal), opts)
			if err == nil {
				continue
			}
			var ke *KeyError
			var ve *ValidationError
			if !errors.As(err, &ke) && !errors.As(err, &ve) && opts.Flags == nil {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
		}
	})
}
