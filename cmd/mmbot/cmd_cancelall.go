package main

import "errors"

// cmdCancelAll is not built yet (issue 6).
func cmdCancelAll(_ *env, _ []string) error {
	return errors.New("not available yet in this build")
}
