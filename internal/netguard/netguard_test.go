package netguard

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// TestCheck: each address is refused or allowed as the IANA registries
// say, with the range it is in named.
func TestCheck(t *testing.T) {
	tests := []struct {
		addr string
		rng  string // "" for an allowed address; else a part of the range named
	}{
		// Public addresses.
		{"8.8.8.8", ""},
		{"93.184.215.14", ""},
		{"1.1.1.1", ""},
		{"100.63.255.255", ""}, // just below CGNAT
		{"100.128.0.0", ""},    // just above it
		{"192.0.1.1", ""},
		{"192.31.196.1", ""},   // AS112, globally reachable
		{"192.175.48.1", ""},   // AS112 direct delegation
		{"198.17.255.255", ""}, // below benchmarking
		{"198.20.0.0", ""},     // above it
		{"223.255.255.255", ""},
		{"2606:4700::1111", ""},
		{"2a00:1450:4001:80b::200e", ""},
		{"64:ff9b::808:808", ""},          // NAT64 of 8.8.8.8
		{"2002:808:808::1", ""},           // 6to4 of 8.8.8.8
		{"2001:0:808:808::f7f7:f7f7", ""}, // Teredo: server 8.8.8.8, client 8.8.8.8
		{"::ffff:8.8.8.8", ""},

		// IPv4 special-purpose ranges.
		{"0.0.0.0", "this network"},
		{"0.1.2.3", "this network"},
		{"10.0.0.1", "private"},
		{"100.64.0.1", "shared address space"},
		{"100.100.100.200", "metadata"}, // Alibaba Cloud
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"169.254.169.254", "link-local"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.0.0.192", "192.0.0.0/24"}, // Oracle Cloud metadata
		{"192.0.0.8", "192.0.0.0/24"},
		{"192.0.0.170", "192.0.0.0/24"},
		{"192.0.2.1", "TEST-NET-1"},
		{"192.88.99.1", "6to4 relay"},
		{"192.168.1.1", "private"},
		{"198.18.0.1", "benchmarking"},
		{"198.19.255.255", "benchmarking"},
		{"198.51.100.7", "TEST-NET-2"},
		{"203.0.113.9", "TEST-NET-3"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"240.0.0.1", "reserved"},
		{"255.255.255.254", "reserved"},
		{"255.255.255.255", "broadcast"},

		// IPv6 special-purpose ranges and space outside global unicast.
		{"::", "unspecified"},
		{"::1", "loopback"},
		{"::127.0.0.1", "IPv4-compatible"},
		{"100::1", "discard-only"},
		{"fc00::1", "unique local"},
		{"fd12:3456::1", "unique local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"fec0::1", "site-local"},
		{"ff02::1", "multicast"},
		{"5f00::1", "outside global unicast"}, // SRv6 SIDs
		{"4000::1", "outside global unicast"},
		{"2001:db8::1", "documentation"},
		{"3fff::1", "documentation"},
		{"2001:2::1", "IETF protocol assignments"},  // benchmarking
		{"2001:10::1", "IETF protocol assignments"}, // ORCHID
		{"64:ff9b:1::1", "local-use"},

		// IPv4 embedded in IPv6.
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:169.254.169.254", "link-local"},
		{"::ffff:10.1.2.3", "private"},
		{"64:ff9b::7f00:1", "loopback"},          // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", "link-local"},     // NAT64 of 169.254.169.254
		{"64:ff9b::6464:64c8", "shared address"}, // NAT64 of 100.100.100.200
		{"2002:7f00:1::", "loopback"},            // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", "link-local"},
		{"2002:c0a8:101::1", "private"},
		{"2001:0:7f00:1::f7f7:f7f7", "Teredo server"},  // server 127.0.0.1
		{"2001:0:808:808::80ff:fffe", "Teredo client"}, // client ^0x80fffffe = 127.0.0.1
		{"2001:0:808:808::5601:5601", "Teredo client"}, // client 169.254.169.254... obfuscated
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			a := netip.MustParseAddr(tt.addr)
			err := Check(a)
			if tt.rng == "" {
				if err != nil {
					t.Fatalf("Check(%s) = %v, want allowed", a, err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Check(%s) = %v, want refused (%s)", a, err, tt.rng)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.rng) && !strings.Contains(e.Via, tt.rng) {
				t.Errorf("Check(%s) = %q, want it to name %q", a, msg, tt.rng)
			}
		})
	}
	if err := Check(netip.Addr{}); err == nil {
		t.Error("the zero Addr is allowed")
	}
}

// FuzzCheck: an IPv4 address and every IPv6 form that embeds it are judged
// alike, and every refused address is refused with a named range.
func FuzzCheck(f *testing.F) {
	for _, s := range []uint32{0x7f000001, 0x08080808, 0xa9fea9fe, 0x64646 << 8, 0xc00000c0, 0xc6120001, 0xf0000001, 0x0a000001} {
		f.Add(s, uint16(0))
	}
	f.Fuzz(func(t *testing.T, v uint32, low uint16) {
		b4 := [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
		v4 := netip.AddrFrom4(b4)
		want := Check(v4) == nil
		forms := map[string]netip.Addr{
			"mapped": netip.AddrFrom16(netip.AddrFrom4(b4).As16()),
			"nat64":  netip.AddrFrom16([16]byte{0, 0x64, 0xff, 0x9b, 10: 0, 11: 0, 12: b4[0], 13: b4[1], 14: b4[2], 15: b4[3]}),
			"6to4":   netip.AddrFrom16([16]byte{0x20, 0x02, b4[0], b4[1], b4[2], b4[3], 14: byte(low >> 8), 15: byte(low)}),
			// Teredo with a public server and the address as client.
			"teredo": netip.AddrFrom16([16]byte{0x20, 0x01, 0, 0, 8, 8, 8, 8, 12: ^b4[0], 13: ^b4[1], 14: ^b4[2], 15: ^b4[3]}),
		}
		for name, a := range forms {
			if got := Check(a) == nil; got != want {
				t.Errorf("%s %s: allowed %v, but %s: allowed %v", name, a, got, v4, want)
			}
		}
		if err := Check(v4); err != nil && !strings.Contains(err.Error(), "/") {
			t.Errorf("%s refused without a range: %v", v4, err)
		}
	})
}
