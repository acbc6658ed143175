package secret

import (
	"strings"
	"testing"
)

func TestLooks(t *testing.T) {
	key := "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	for _, tc := range []struct{ in, want string }{
		{key, LooksPrivateKey},
		{"0x" + key, LooksPrivateKey},
		{"0X" + strings.ToUpper(key), LooksPrivateKey},
		{"http://h/" + key, LooksPrivateKey},
		{" " + key + " ", LooksPrivateKey},
		{"2f7d1c3a-5b9e-4d21-8f60-0c4e9a7b3d15", LooksToken},
		{"Zm9vYmFyLXNlY3JldC1rZXktZm9yLXRlc3RzLW9ubHkx", LooksBase64},
		{"Zm9vYmFy+XNlY3JldC1rZXktZm9y/GVzdHMtb25seQ==", LooksBase64},
		{"Tr0ub4dor&3-horse!Battery", LooksPassphrase},
		// not secrets
		{"0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E", ""},                                    // an address
		{"71321045679252212594626385532706912750332728571942532289631379312455583992563", ""}, // a token id
		{"http://127.0.0.1:8080/clob", ""},
		{"https://User1:x@Host.example/", ""},
		{"/var/lib/mmbot/Mmbot-2.db", ""},
		{"will-the-summit-cancel-the-event-by-december-24", ""},
		{"avellaneda", ""}, {"250ms", ""}, {"0.05", ""}, {"", ""},
		{"a phrase with Spaces 1!", ""},
	} {
		if got := Looks(tc.in); got != tc.want {
			t.Errorf("Looks(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Mask("0x" + key); got != "[redacted: looks like "+LooksPrivateKey+"]" {
		t.Errorf("Mask = %q", got)
	}
	if got := Mask("info"); got != "info" {
		t.Errorf("Mask(info) = %q", got)
	}
}

func TestScrub(t *testing.T) {
	key := "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	in := `line 3: invalid value "0x` + key + `" for key 2f7d1c3a-5b9e-4d21-8f60-0c4e9a7b3d15 at 0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E`
	want := `line 3: invalid value "` + Redacted + `" for key ` + Redacted + ` at 0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E`
	if got := Scrub(in); got != want {
		t.Errorf("Scrub:\n got %s\nwant %s", got, want)
	}
}

func TestLooksDecimalKey(t *testing.T) {
	digits := strings.Repeat("3", 64)
	if Looks(digits) == "" || Scrub("x "+digits) != "x "+Redacted {
		t.Errorf("64 decimal digits (a possible key) not redacted")
	}
}
