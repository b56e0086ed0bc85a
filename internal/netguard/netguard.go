// Package netguard decides which addresses a fetch of an untrusted link may
// connect to: a web page named by a search result must not make the tool
// read the local network, a cloud's metadata service or anything else that
// is not on the public Internet.
//
// The deny-list is every range of the IANA IPv4 and IPv6 Special-Purpose
// Address Registries (RFC 6890 and its updates) that is not globally
// reachable, with multicast and the IPv6 space outside global unicast
// (2000::/3). An IPv6 address that embeds an IPv4 one (IPv4-mapped, NAT64's
// well-known prefix, 6to4, Teredo's server and client) is judged by the
// IPv4 address it leads to, so that 2002:7f00:1:: is loopback as 127.0.0.1
// is.
package netguard

import (
	"fmt"
	"net/netip"
)

// Error is a connection refused because of its address.
type Error struct {
	Addr  netip.Addr
	Range string // the range it is in, with its name: "127.0.0.0/8 (loopback)"
	Via   string // how an embedded IPv4 address was found ("6to4"), if it was
}

func (e *Error) Error() string {
	if e.Via != "" {
		return fmt.Sprintf("address %s (%s) leads to %s, not a public address", e.Addr, e.Via, e.Range)
	}
	return fmt.Sprintf("address %s is in %s, not a public address", e.Addr, e.Range)
}

// block is a denied range and what it is.
type block struct {
	prefix netip.Prefix
	name   string
}

func blocks(list ...string) []block {
	out := make([]block, 0, len(list)/2)
	for i := 0; i < len(list); i += 2 {
		out = append(out, block{netip.MustParsePrefix(list[i]), list[i+1]})
	}
	return out
}

// v4Blocks are the IPv4 ranges that are not globally reachable (IANA
// IPv4 Special-Purpose Address Registry, 2024), and multicast. Of
// 192.0.0.0/24 the registry marks two anycast addresses globally reachable
// (192.0.0.9, 192.0.0.10): no web page lives there, and the /24 is refused
// whole. Globally reachable entries (AS112, AMT) are not listed.
var v4Blocks = blocks(
	"0.0.0.0/8", "this network",
	"10.0.0.0/8", "private",
	"100.64.0.0/10", "shared address space (carrier-grade NAT; 100.100.100.200 is a cloud metadata service)",
	"127.0.0.0/8", "loopback",
	"169.254.0.0/16", "link-local (169.254.169.254 is a cloud metadata service)",
	"172.16.0.0/12", "private",
	"192.0.0.0/24", "IETF protocol assignments (192.0.0.192 is a cloud metadata service)",
	"192.0.2.0/24", "documentation (TEST-NET-1)",
	"192.88.99.0/24", "deprecated 6to4 relay anycast",
	"192.168.0.0/16", "private",
	"198.18.0.0/15", "benchmarking",
	"198.51.100.0/24", "documentation (TEST-NET-2)",
	"203.0.113.0/24", "documentation (TEST-NET-3)",
	"224.0.0.0/4", "multicast",
	"255.255.255.255/32", "limited broadcast", // before 240.0.0.0/4, which holds it
	"240.0.0.0/4", "reserved",
)

// v6Blocks are the IPv6 ranges inside global unicast (2000::/3) that are
// not globally reachable (IANA IPv6 Special-Purpose Address Registry,
// 2024); Teredo (2001::/32) and 6to4 (2002::/16) are judged by the IPv4
// addresses they embed, before these. As with 192.0.0.0/24, the few
// globally reachable anycast and overlay entries inside 2001::/23 are
// refused with it.
var v6Blocks = blocks(
	"2001::/23", "IETF protocol assignments",
	"2001:db8::/32", "documentation",
	"3fff::/20", "documentation",
)

// Outside global unicast, only two ranges lead anywhere public: IPv4-mapped
// and NAT64 addresses, judged by their IPv4 address.
var (
	globalUnicast = netip.MustParsePrefix("2000::/3")
	nat64         = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local    = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour     = netip.MustParsePrefix("2002::/16")
	teredo        = netip.MustParsePrefix("2001::/32")
)

// Check returns nil for an address a fetch of an untrusted link may
// connect to, else an *Error naming the range the address is in.
func Check(a netip.Addr) error {
	if !a.IsValid() {
		return &Error{Addr: a, Range: "no address"}
	}
	a = a.WithZone("")
	if a.Is4In6() {
		return checkEmbedded(a, a.Unmap(), "IPv4-mapped")
	}
	if a.Is4() {
		for _, b := range v4Blocks {
			if b.prefix.Contains(a) {
				return &Error{Addr: a, Range: fmt.Sprintf("%s (%s)", b.prefix, b.name)}
			}
		}
		return nil
	}
	b := a.As16()
	switch {
	case nat64.Contains(a):
		return checkEmbedded(a, netip.AddrFrom4([4]byte(b[12:16])), "NAT64")
	case nat64Local.Contains(a):
		return &Error{Addr: a, Range: nat64Local.String() + " (local-use IPv4/IPv6 translation)"}
	case !globalUnicast.Contains(a):
		return &Error{Addr: a, Range: outside(a)}
	case sixToFour.Contains(a):
		return checkEmbedded(a, netip.AddrFrom4([4]byte(b[2:6])), "6to4")
	case teredo.Contains(a):
		if err := checkEmbedded(a, netip.AddrFrom4([4]byte(b[4:8])), "Teredo server"); err != nil {
			return err
		}
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		return checkEmbedded(a, netip.AddrFrom4(client), "Teredo client")
	}
	for _, bl := range v6Blocks {
		if bl.prefix.Contains(a) {
			return &Error{Addr: a, Range: fmt.Sprintf("%s (%s)", bl.prefix, bl.name)}
		}
	}
	return nil
}

// checkEmbedded judges an IPv6 address by the IPv4 address v4 it embeds.
func checkEmbedded(a, v4 netip.Addr, via string) error {
	err := Check(v4)
	if err == nil {
		return nil
	}
	e := err.(*Error)
	return &Error{Addr: a, Range: fmt.Sprintf("%s, %s", v4, e.Range), Via: via}
}

// v6Outside names the IPv6 ranges outside global unicast, for messages.
var v6Outside = blocks(
	"::/128", "unspecified",
	"::1/128", "loopback",
	"::/96", "IPv4-compatible (deprecated)",
	"100::/64", "discard-only",
	"fc00::/7", "unique local",
	"fe80::/10", "link-local",
	"fec0::/10", "site-local (deprecated)",
	"ff00::/8", "multicast",
)

// outside is the most specific named range outside global unicast that
// holds a.
func outside(a netip.Addr) string {
	for _, b := range v6Outside {
		if b.prefix.Contains(a) {
			return fmt.Sprintf("%s (%s)", b.prefix, b.name)
		}
	}
	return "reserved space outside global unicast 2000::/3"
}
