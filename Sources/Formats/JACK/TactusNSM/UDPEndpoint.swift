#if canImport(Glibc)
import Glibc
#endif

/// A UDP socket of our own (any free port) that sends OSC packets to the
/// session manager and receives its messages, with a timeout, on the thread
/// that owns it. NSM tells clients apart by the address they announce from,
/// so every message goes out of this one socket (as liblo's `lo_send_from`).
///
/// Thread: one owner (the prompt thread of `tactus jack`). Not realtime.
public final class UDPEndpoint {
    private let socketDescriptor: Int32
    /// Where `NSM_URL` points.
    public let server: SocketAddress

    /// Resolves `url`'s host and opens a socket of its family. Throws a message a person reads.
    public init(server url: NSMURL) throws(NSMError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(url.host, String(url.port), &hints, &found)
        guard status == 0, let first = found else {
            throw NSMError("cannot find the session manager's host '\(url.host)' (NSM_URL \(url.text)): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }
        var address = sockaddr_storage()
        withUnsafeMutableBytes(of: &address) { $0.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen))) }
        server = SocketAddress(storage: address, length: first.pointee.ai_addrlen)
        let fd = socket(first.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NSMError("cannot open a UDP socket: \(String(cString: strerror(errno)))") }
        socketDescriptor = fd
    }

    deinit { close(socketDescriptor) }

    /// Sends one packet; the system's reason when it could not.
    @discardableResult
    public func send(_ bytes: [UInt8], to address: SocketAddress? = nil) -> String? {
        var target = address ?? server
        let sent = withUnsafePointer(to: &target.storage) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(socketDescriptor, bytes, bytes.count, 0, $0, target.length) }
        }
        return sent == bytes.count ? nil : String(cString: strerror(errno))
    }

    /// The next packet and its sender, or nil after `timeoutMilliseconds` without one (or on EINTR).
    public func receive(timeoutMilliseconds: Int32) -> (bytes: [UInt8], from: SocketAddress)? {
        var poller = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) > 0 else { return nil }
        // The largest UDP payload: a packet is never cut short here.
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var from = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let n = withUnsafeMutablePointer(to: &from) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(socketDescriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT), $0, &length) }
        }
        guard n >= 0 else { return nil }
        return (Array(buffer[..<n]), SocketAddress(storage: from, length: length))
    }
}

/// A socket address (IPv4 or IPv6), as the system gives it.
public struct SocketAddress: @unchecked Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    /// `127.0.0.1:44100`, `[::1]:44100`.
    public var description: String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var port = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        var copy = storage
        let status = withUnsafePointer(to: &copy) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &port, socklen_t(port.count), NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return "(an address of family \(storage.ss_family))" }
        let h = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let p = String(decoding: port.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return h.contains(":") ? "[\(h)]:\(p)" : "\(h):\(p)"
    }
}

/// `NSM_URL` read: `osc.udp://HOST:PORT/` (HOST a name, an IPv4 address or
/// an IPv6 one in brackets), as liblo writes it.
public struct NSMURL: Equatable, Sendable {
    public var host: String
    public var port: UInt16
    /// The text as given.
    public var text: String

    public init(parsing text: String) throws(NSMError) {
        self.text = text
        let scheme = "osc.udp://"
        guard text.hasPrefix(scheme) else {
            throw NSMError("NSM_URL '\(text)' is not an OSC-over-UDP address like osc.udp://localhost:15000/ (\(text.hasPrefix("osc.tcp://") ? "TCP is not supported" : "no osc.udp:// at its start"))")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        let hostPart: Substring
        let portPart: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix(":") else {
                throw NSMError("NSM_URL '\(text)': an IPv6 host is written [ADDRESS]:PORT")
            }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            portPart = rest[rest.index(close, offsetBy: 2)...]
        } else {
            guard let colon = rest.lastIndex(of: ":") else { throw NSMError("NSM_URL '\(text)' has no port (osc.udp://HOST:PORT/)") }
            hostPart = rest[..<colon]
            portPart = rest[rest.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw NSMError("NSM_URL '\(text)' has no host (osc.udp://HOST:PORT/)") }
        guard let port = UInt16(portPart), port > 0 else { throw NSMError("NSM_URL '\(text)': the port '\(portPart)' is not 1-65535") }
        host = String(hostPart)
        self.port = port
    }
}

/// A session-manager failure, said so a person can act on it.
public struct NSMError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
