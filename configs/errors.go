package configs

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/mmbot/mmbot/internal/secret"
)

// ErrUnknownKey is wrapped by a KeyError for a key the configuration does
// not have.
var ErrUnknownKey = errors.New("not a configuration key")

// KeyError is a problem with one key as given by one source: an unknown
// key, or a value of the wrong type. Load joins all of them into one error;
// errors.As finds each.
type KeyError struct {
	Source string // "file /etc/mmbot.toml", "env MMBOT_LOG_LEVEL", "flag --set"
	Key    string // the dotted key as the source spelled it
	Err    error
}

func (e *KeyError) Error() string {
	key := strconv.Quote(e.Key)
	if secret.Looks(e.Key) != "" {
		key = secret.Mask(e.Key)
	}
	return secret.Scrub(fmt.Sprintf("%s: key %s: %v", e.Source, key, e.Err))
}

func (e *KeyError) Unwrap() error { return e.Err }

// SyntaxError is a config file that is not valid TOML. Line and Column
// are 1-based; Column is 0 when the parser does not give one.
type SyntaxError struct {
	File         string
	Line, Column int
	Err          error
}

func (e *SyntaxError) Error() string {
	// The parser's message may quote the line: Scrub keeps a secret
	// written on it out.
	switch {
	case e.Line == 0:
		return secret.Scrub(fmt.Sprintf("config file %s: %v", e.File, e.Err))
	case e.Column == 0:
		return secret.Scrub(fmt.Sprintf("config file %s:%d: %v", e.File, e.Line, e.Err))
	}
	return secret.Scrub(fmt.Sprintf("config file %s:%d:%d: %v", e.File, e.Line, e.Column, e.Err))
}

func (e *SyntaxError) Unwrap() error { return e.Err }
