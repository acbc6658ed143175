package main

import "errors"

// cmdSim is not built yet (issue 4).
func cmdSim(_ *env, _ []string) error {
	return errors.New("not available yet in this build")
}
