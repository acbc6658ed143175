package sim

import (
	"fmt"
	"net/netip"
	"strings"
)

// allowlist is the data API's IP allowlist; empty allows everyone.
type allowlist struct {
	prefixes []netip.Prefix
}

func newAllowlist(entries []string) (*allowlist, error) {
	a := &allowlist{}
	for _, s := range entries {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if strings.Contains(s, "/") {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return nil, fmt.Errorf("sim: allowlist entry %q: %w", s, err)
			}
			a.prefixes = append(a.prefixes, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("sim: allowlist entry %q: %w", s, err)
		}
		a.prefixes = append(a.prefixes, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
	}
	return a, nil
}

// allowed reports whether a client IP ("" when unknown) may use the data API.
func (a *allowlist) allowed(ip string) bool {
	if len(a.prefixes) == 0 {
		return true
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, p := range a.prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
