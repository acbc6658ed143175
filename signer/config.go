package signer

import (
	"fmt"
)

// Default EIP-712 domain (DESIGN.md §4).
const (
	DefaultChainID         = 137
	DefaultExchange        = "0xE111180000d2663C0091e4f400237545B87B996B"
	DefaultNegRiskExchange = "0xe2222d279d744050d28e00520010520000310F59"
	DefaultDomainName      = "Polymarket CTF Exchange"
	DefaultDomainVersion   = "2"
)

// Config is the EIP-712 domain of the exchange contracts.
type Config struct {
	ChainID         int64  // chain id of the domain
	Exchange        string // verifying contract of ordinary markets
	NegRiskExchange string // verifying contract of neg_risk markets
	DomainName      string
	DomainVersion   string
}

// DefaultConfig returns the domain of DESIGN.md §4.
func DefaultConfig() Config {
	return Config{
		ChainID:         DefaultChainID,
		Exchange:        DefaultExchange,
		NegRiskExchange: DefaultNegRiskExchange,
		DomainName:      DefaultDomainName,
		DomainVersion:   DefaultDomainVersion,
	}
}

// Validate reports the first problem of c, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	_, err := newDomains(c)
	return err
}

func (c Config) validate() error {
	if c.ChainID <= 0 {
		return fmt.Errorf("%w: chain id %d must be positive", ErrInvalidConfig, c.ChainID)
	}
	if _, err := parseAddress(c.Exchange); err != nil {
		return fmt.Errorf("%w: exchange: %w", ErrInvalidConfig, err)
	}
	if _, err := parseAddress(c.NegRiskExchange); err != nil {
		return fmt.Errorf("%w: neg-risk exchange: %w", ErrInvalidConfig, err)
	}
	if c.DomainName == "" || c.DomainVersion == "" {
		return fmt.Errorf("%w: domain name and version must be set", ErrInvalidConfig)
	}
	return nil
}
