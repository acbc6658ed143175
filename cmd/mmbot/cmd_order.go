package main

import "errors"

// cmdOrder is not built yet (issue 3).
func cmdOrder(_ *env, _ []string) error {
	return errors.New("not available yet in this build")
}
