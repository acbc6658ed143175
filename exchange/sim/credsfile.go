package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mmbot/mmbot/internal/atomicfile"
)

// CredentialsFile is the JSON written by WriteCredentialsFile (and
// `mmbot sim --creds-out`); docs/simulator.md documents it. Secrets appear
// in clear: the file is created with mode 0600.
type CredentialsFile struct {
	Version  int                  `json:"version"`
	DataURL  string               `json:"data_url"`
	Catalog  string               `json:"catalog_url"`
	CLOB     string               `json:"clob_url"`
	ChainID  int64                `json:"chain_id"`
	Accounts []CredentialsAccount `json:"accounts"`
}

// CredentialsAccount is one account of a credentials file.
type CredentialsAccount struct {
	Label         string `json:"label"`
	Address       string `json:"address"`
	Wallet        string `json:"wallet"`
	SignatureType int    `json:"signature_type"`
	APIKey        string `json:"api_key"`
	Secret        string `json:"secret"`
	Passphrase    string `json:"passphrase"`
	PrivateKey    string `json:"private_key,omitempty"`
}

// CredentialsFileVersion is the format version written.
const CredentialsFileVersion = 1

// NewCredentialsFile assembles the file's content.
func NewCredentialsFile(urls URLs, chainID int64, accts []AccountCreds) CredentialsFile {
	f := CredentialsFile{Version: CredentialsFileVersion, DataURL: urls.Data, Catalog: urls.Catalog, CLOB: urls.CLOB, ChainID: chainID, Accounts: []CredentialsAccount{}}
	for _, a := range accts {
		f.Accounts = append(f.Accounts, CredentialsAccount{
			Label: a.Label, Address: a.Address, Wallet: a.Wallet, SignatureType: a.SignatureType, APIKey: a.APIKey,
			Secret: a.Secret.Reveal(), Passphrase: a.Passphrase.Reveal(), PrivateKey: a.PrivateKey.Reveal(),
		})
	}
	return f
}

// ChainID is the chain id of the EIP-712 domain the exchange verifies
// orders under (Config.Domain after defaults): the credentials file's
// chain_id.
func (e *Exchange) ChainID() int64 { return e.cfg.Domain.ChainID }

// WriteCredentialsFile writes f to path with mode 0600, atomically
// (temporary file in the same directory, fsync, rename).
func WriteCredentialsFile(path string, f CredentialsFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("sim: credentials file: %w", err)
	}
	b = append(b, '\n')
	err = atomicfile.WriteFile(path, 0o600, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("sim: credentials file: %w", err)
	}
	return nil
}

// ReadCredentialsFile reads a credentials file (for tests and tools).
func ReadCredentialsFile(path string) (CredentialsFile, error) {
	var f CredentialsFile
	b, err := os.ReadFile(path)
	if err != nil {
		return f, fmt.Errorf("sim: credentials file: %w", err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("sim: credentials file %s: %w", path, err)
	}
	if f.Version != CredentialsFileVersion {
		return f, fmt.Errorf("sim: credentials file %s: version %d, want %d", path, f.Version, CredentialsFileVersion)
	}
	return f, nil
}
