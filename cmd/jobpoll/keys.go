package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// provider names a provider and where its key comes from.
type provider struct {
	name   string // "narada", as in the command line
	title  string // "Narada"
	keyEnv string // "NARADA_API_KEY"
}

var (
	naradaProvider   = provider{name: "narada", title: "Narada", keyEnv: "NARADA_API_KEY"}
	documindProvider = provider{name: "documind", title: "Documind", keyEnv: "DOCUMIND_API_KEY"}
	ingestlyProvider = provider{name: "ingestly", title: "Ingestly", keyEnv: "INGESTLY_API_KEY"}
)

// maxKeyFile bounds a key file: a key is short, and a wrong path (a
// document instead of the key) should fail fast rather than be sent.
const maxKeyFile = 64 << 10

// apiKey returns the provider's key from --key-file or its environment
// variable, and says where it came from, for a 401. Neither the key nor
// any part of a key file ever appears in an error.
func (s *session) apiKey(p provider) (key, source string, err error) {
	if s.opts.keyFile == "" {
		key = strings.TrimSpace(s.getenv(p.keyEnv))
		if key == "" {
			return "", "", fmt.Errorf("no %s API key: set %s (export %s=...) or pass --key-file FILE", p.title, p.keyEnv, p.keyEnv)
		}
		return key, p.keyEnv, nil
	}
	source = "the key in --key-file " + s.opts.keyFile
	r, closeFile, err := s.open(s.opts.keyFile, "--key-file")
	if err != nil {
		return "", "", err
	}
	defer closeFile()
	data, err := io.ReadAll(io.LimitReader(r, maxKeyFile+1))
	switch {
	case err != nil:
		return "", "", fmt.Errorf("--key-file %s: %w", s.opts.keyFile, err)
	case len(data) > maxKeyFile:
		return "", "", fmt.Errorf("--key-file %s is over %d KiB: it should hold only the %s API key", s.opts.keyFile, maxKeyFile>>10, p.title)
	}
	key = strings.TrimSpace(string(data))
	switch {
	case key == "":
		return "", "", fmt.Errorf("--key-file %s is empty: it should hold the %s API key", s.opts.keyFile, p.title)
	case strings.ContainsAny(key, "\r\n"):
		return "", "", fmt.Errorf("--key-file %s holds more than one line: it should hold only the %s API key", s.opts.keyFile, p.title)
	}
	return key, source, nil
}

// open opens a file named by a flag, "-" meaning stdin. stdin can be read
// by one flag only.
func (s *session) open(name, flagName string) (io.Reader, func(), error) {
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", flagName, err)
		}
		return f, func() { _ = f.Close() }, nil
	}
	if s.stdinBy != "" {
		return nil, nil, usagef("%s - and %s - both read stdin; only one of them can", s.stdinBy, flagName)
	}
	s.stdinBy = flagName
	if s.stdin == nil {
		return nil, nil, errors.New(flagName + " -: there is no stdin")
	}
	return s.stdin, func() {}, nil
}

// readAll reads a file named by a flag, "-" meaning stdin.
func (s *session) readAll(name, flagName string) ([]byte, error) {
	r, closeFile, err := s.open(name, flagName)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flagName, name, err)
	}
	return data, nil
}
