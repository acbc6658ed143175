// Package secret holds values that must never be printed: private keys, API
// secrets and passphrases. A Value formats as "[redacted]" through every
// printing path (fmt verbs, String, GoString, JSON, text, zerolog); the only
// way to read it is Reveal, which call sites use at the point of use.
package secret
