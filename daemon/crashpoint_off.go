//go:build !mmbot_crashpoint

package daemon

import "github.com/mmbot/mmbot/strategy/loop"

// The release build has no crash points (crashpoint.go, built with the tag
// mmbot_crashpoint, has them): nothing is wrapped, and the environment
// reaches the configuration unfiltered.

type crashpoint struct{}

func crashpointFrom(func(string) string) (crashpoint, error) { return crashpoint{}, nil }

func (crashpoint) journal(j loop.Journal) loop.Journal { return j }

func (crashpoint) venue(v loop.Venue) loop.Venue { return v }

// ConfigEnviron is the environment the configuration is loaded from
// (configs.LoadOptions.Environ): environ itself in the release build; the
// test build leaves out its crash-point variable, which is not a
// configuration key.
func ConfigEnviron(environ []string) []string { return environ }
