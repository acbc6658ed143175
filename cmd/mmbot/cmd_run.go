package main

import "errors"

// cmdRun is not built yet (issue 6).
func cmdRun(_ *env, _ []string) error {
	return errors.New("not available yet in this build")
}
