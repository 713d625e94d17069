package pgtest

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ErrDSN is returned, wrapped with the input, for a connection string that
// is neither a postgres:// URL nor a libpq keyword/value DSN that pgx accepts.
var ErrDSN = errors.New("pgtest: invalid connection string")

// NormalizeDSN returns raw as a postgres:// URL: a URL is returned as given,
// and a libpq keyword/value DSN such as "host=127.0.0.1 user=postgres
// dbname=postgres" becomes the URL naming the same settings, so that tools
// which take only URLs (golang-migrate) reach the same server. It returns
// ErrDSN, quoting raw as given with any password hidden, when pgx rejects
// raw or raw is a URL of another scheme.
func NormalizeDSN(raw string) (string, error) {
	if strings.Contains(raw, "://") {
		u, err := url.Parse(raw)
		if err == nil && u.Scheme != "postgres" && u.Scheme != "postgresql" {
			err = fmt.Errorf("scheme %q is not postgres:// or postgresql://", u.Scheme)
		}
		if err == nil {
			_, err = pgx.ParseConfig(raw)
		}
		if err != nil {
			return "", fmt.Errorf("%w %q: %w", ErrDSN, redact(raw), err)
		}
		return raw, nil
	}
	if _, err := pgx.ParseConfig(raw); err != nil {
		return "", fmt.Errorf("%w %q: %w", ErrDSN, redact(raw), err)
	}
	settings, err := keywordValues(raw)
	if err != nil {
		return "", fmt.Errorf("%w %q: %w", ErrDSN, redact(raw), err)
	}
	return settingsURL(settings), nil
}

// keywordValues splits a libpq keyword/value DSN into its settings, reading
// quoted values and backslash escapes as libpq does.
func keywordValues(s string) (map[string]string, error) {
	settings := make(map[string]string)
	for {
		s = strings.TrimLeft(s, " \t\n\r\v\f")
		if s == "" {
			return settings, nil
		}
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return nil, fmt.Errorf("%q has no =", s)
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t\n\r\v\f")
		var val strings.Builder
		quoted := strings.HasPrefix(s, "'")
		if quoted {
			s = s[1:]
		}
		i := 0
		for ; i < len(s); i++ {
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				i++
				val.WriteByte(s[i])
				continue
			}
			if (quoted && c == '\'') || (!quoted && strings.IndexByte(" \t\n\r\v\f", c) >= 0) {
				break
			}
			val.WriteByte(c)
		}
		if quoted {
			if i >= len(s) {
				return nil, fmt.Errorf("value of %s has no closing quote", key)
			}
			i++
		}
		settings[key] = val.String()
		s = s[i:]
	}
}

// settingsURL builds the postgres:// URL of libpq settings: host, port,
// user, password and dbname in their places, the rest as query parameters.
func settingsURL(settings map[string]string) string {
	u := url.URL{Scheme: "postgres"}
	if user, ok := settings["user"]; ok {
		u.User = url.User(user)
		if pw, ok := settings["password"]; ok {
			u.User = url.UserPassword(user, pw)
		}
	}
	if db, ok := settings["dbname"]; ok {
		u.Path = "/" + db
	}
	query := url.Values{}
	host, port := settings["host"], settings["port"]
	switch {
	case host != "" && !strings.ContainsAny(host, "/,") && !strings.Contains(port, ","):
		u.Host = host
		if port != "" {
			u.Host = net.JoinHostPort(host, port)
		}
		delete(settings, "port")
	case host != "":
		query.Set("host", host)
	}
	for k, v := range settings {
		switch k {
		case "host", "user", "dbname":
		case "password":
			if u.User == nil {
				query.Set(k, v)
			}
		default:
			query.Set(k, v)
		}
	}
	u.RawQuery = query.Encode()
	return u.String()
}

// passwordRE finds a password in a URL's user info, a URL's query or a
// keyword/value DSN.
var passwordRE = regexp.MustCompile(`(://[^:/@?#]*:)[^@/?#]*(@)|((?:^|[?&\s])password\s*=\s*)('(?:[^'\\]|\\.)*'|[^&\s]*)`)

// redact returns raw as given with any password replaced by xxxxx, for messages.
func redact(raw string) string {
	return passwordRE.ReplaceAllStringFunc(raw, func(m string) string {
		sub := passwordRE.FindStringSubmatch(m)
		if sub[1] != "" {
			return sub[1] + "xxxxx" + sub[2]
		}
		return sub[3] + "xxxxx"
	})
}
