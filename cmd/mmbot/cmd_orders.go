package main

import "errors"

// cmdOrders is not built yet (issue 6).
func cmdOrders(_ *env, _ []string) error {
	return errors.New("not available yet in this build")
}
