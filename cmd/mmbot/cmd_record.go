package main

import "errors"

// cmdRecord is not built yet (issue 7).
func cmdRecord(_ *env, _ []string) error {
	return errors.New("not available yet in this build")
}
