package main

import "errors"

// cmdMarkets is not built yet (issue 2).
func cmdMarkets(_ *env, _ []string) error {
	return errors.New("not available yet in this build")
}
