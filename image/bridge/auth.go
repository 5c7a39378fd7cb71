// Bearer authentication of every MCP request. The token comes from a mounted Secret file or the
// AGW_BRIDGE_TOKEN variable (which the child never inherits); requests are compared in constant
// time over SHA-256 digests, so neither the token's length nor its prefix leaks through timing.
package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// tokenEnv names the environment variable the token may come from.
const tokenEnv = "AGW_BRIDGE_TOKEN"

// minTokenBytes refuses tokens a person typed; the operator generates 256-bit ones.
const minTokenBytes = 16

type auth struct {
	open   bool
	digest [sha256.Size]byte
}

// loadAuth reads the token (file first, then the environment) or, with insecureNoAuth, accepts
// every request. Without a token and without the explicit opt-out the bridge refuses to start.
func loadAuth(tokenFile string, insecureNoAuth bool, getenv func(string) string) (*auth, error) {
	token := ""
	switch {
	case tokenFile != "":
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			return nil, fmt.Errorf("reading --token-file: %w", err)
		}
		token = strings.TrimSpace(string(data))
		if token == "" {
			return nil, errors.New("--token-file is empty")
		}
	case getenv(tokenEnv) != "":
		token = strings.TrimSpace(getenv(tokenEnv))
	case insecureNoAuth:
		return &auth{open: true}, nil
	default:
		return nil, errors.New("no token: give --token-file or " + tokenEnv + " (or --insecure-no-auth for local tests)")
	}
	if len(token) < minTokenBytes {
		return nil, fmt.Errorf("the token is shorter than %d bytes", minTokenBytes)
	}
	return &auth{digest: sha256.Sum256([]byte(token))}, nil
}

// allows says whether the request carries the token as `Authorization: Bearer <token>`.
func (a *auth) allows(r *http.Request) bool {
	if a.open {
		return true
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], a.digest[:]) == 1
}
