package secret

import (
	"strings"
	"unicode"
)

// What a value that looks secret is called in a redaction.
const (
	LooksPrivateKey = "a private key or another long hex secret"
	LooksToken      = "an API key or another random token"
	LooksBase64     = "a base64 secret"
	LooksPassphrase = "a passphrase"
)

// Looks reports what s looks like when it looks like a secret — a private
// key (a run of hex digits anywhere in s: see hasHexRun), a UUID-shaped API key, a base64 or base64url secret (24 or
// more characters of that alphabet mixing upper case, lower case and
// digits), or a passphrase (12 or more characters without spaces mixing
// three of upper case, lower case, digits and symbols other than - _ .,
// that is no URL or path) — and "" otherwise. Addresses (40 hex digits),
// slugs, URLs, paths, durations and numbers do not look secret. It is a heuristic
// for messages: what it misses is still a secret.
func Looks(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case hasHexRun(s):
		return LooksPrivateKey
	case isUUID(s):
		return LooksToken
	case allHex(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")):
		return "" // a short hex number or an address
	case looksBase64(s):
		return LooksBase64
	case looksPassphrase(s):
		return LooksPassphrase
	}
	return ""
}

// Mask returns s, or a redaction saying what s looks like when Looks(s)
// says it looks secret: "[redacted: looks like a passphrase]".
func Mask(s string) string {
	if what := Looks(s); what != "" {
		return "[redacted: looks like " + what + "]"
	}
	return s
}

// Scrub replaces, in a message, every word that holds a private key (a long
// hex run, as Looks judges it) or is a UUID-shaped key with Redacted: a
// safety net for text that quotes values (a parser's error). Words are runs
// of letters, digits and + / = _ -. Base64 is left to Looks and Mask, which
// judge a whole value: within a message it cannot be told from a path.
func Scrub(text string) string {
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := text[start:end]
		if hasHexRun(w) || isUUID(w) {
			b.WriteString(Redacted)
		} else {
			b.WriteString(w)
		}
		start = -1
	}
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		b.WriteRune(r)
	}
	flush(len(text))
	return b.String()
}

func isWordRune(r rune) bool {
	return r < unicode.MaxASCII && (isAlnum(byte(r)) || strings.ContainsRune("+/=_-", r))
}

func isAlnum(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHexByte(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// hasHexRun reports a run of hex digits that may be a key: 48 or more that
// are 0x-prefixed or hold a letter, or 60 to 70 of any kind (a private key
// can be all decimal digits; a token id, a longer decimal number, is not
// taken for one).
func hasHexRun(s string) bool {
	for i := 0; i < len(s); {
		if !isHexByte(s[i]) {
			i++
			continue
		}
		j, letter := i, false
		for j < len(s) && isHexByte(s[j]) {
			letter = letter || !isDigit(s[j])
			j++
		}
		prefixed := i >= 2 && s[i-2] == '0' && (s[i-1] == 'x' || s[i-1] == 'X')
		if n := j - i; n >= 48 && (letter || prefixed) || n >= 60 && n <= 70 {
			return true
		}
		i = j
	}
	return false
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexByte(s[i]) {
			return false
		}
	}
	return true
}

// isUUID reports the 8-4-4-4-12 hex shape.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return false
			}
		} else if !isHexByte(s[i]) {
			return false
		}
	}
	return true
}

func looksBase64(s string) bool {
	if len(s) < 24 || allHex(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")) {
		return false // hex (an address) is hasHexRun's to judge
	}
	var upper, lower, digit bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		case isDigit(c):
			digit = true
		case strings.IndexByte("+/=_-", c) < 0:
			return false
		}
	}
	return upper && lower && digit
}

func looksPassphrase(s string) bool {
	if len(s) < 12 || strings.Contains(s, "://") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") {
		return false
	}
	var upper, lower, digit, symbol int
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			return false
		case unicode.IsUpper(r):
			upper = 1
		case unicode.IsLower(r):
			lower = 1
		case unicode.IsDigit(r):
			digit = 1
		case strings.ContainsRune("-_.", r): // slugs and file names have them
		default:
			symbol = 1
		}
	}
	return upper+lower+digit+symbol >= 3
}
