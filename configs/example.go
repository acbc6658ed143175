package configs

import _ "embed"

//go:embed mmbot.example.toml
var example []byte

// Example returns the example configuration file: every key with a comment
// and its default value (the three URLs and markets.auto.enabled excepted).
func Example() []byte { return append([]byte(nil), example...) }
