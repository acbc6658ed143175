package main

import "errors"

// cmdBacktest is not built yet (issue 7).
func cmdBacktest(_ *env, _ []string) error {
	return errors.New("not available yet in this build")
}
