import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

#if canImport(Glibc)
  import Glibc
#endif

// The WebSocket benchmarks' server: one neutral echo server, SwiftNIO's own WebSocket codec
// on one event loop, that both clients (Courier, hummingbird-project's WSClient) talk to over
// 127.0.0.1. It accepts the upgrade on any path, echoes every text, binary and continuation
// frame as it came (same opcode and FIN bit, unmasked), answers pings and the close
// handshake, and flushes once per read burst. It prints `PORT n` once it listens.
//
//   WebSocketEchoServer [--port 0]

/// Echoes frames back.
final class EchoHandler: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private var closing = false

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    switch frame.opcode {
    case .text, .binary, .continuation:
      guard !closing else { return }
      let echo = WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: frame.unmaskedData)
      context.write(wrapOutboundOut(echo), promise: nil)
    case .ping:
      let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
      context.write(wrapOutboundOut(pong), promise: nil)
    case .connectionClose:
      guard !closing else {
        context.close(promise: nil)
        return
      }
      closing = true
      // Answers with the client's code (the first two bytes of its payload), then closes.
      var payload = frame.unmaskedData
      let code = payload.readSlice(length: 2) ?? ByteBuffer()
      let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: code)
      let channel = context.channel
      context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in
        channel.close(promise: nil)
      }
    default:
      break
    }
  }

  func channelReadComplete(context: ChannelHandlerContext) {
    context.flush()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}

func port() -> Int {
  let words = CommandLine.arguments
  if let index = words.firstIndex(of: "--port"), index + 1 < words.count,
    let port = Int(words[index + 1])
  {
    return port
  }
  return 0
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let bootstrap = ServerBootstrap(group: group)
  .serverChannelOption(.backlog, value: 256)
  .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
  .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
  .childChannelInitializer { channel in
    let upgrader = NIOWebSocketServerUpgrader(
      maxFrameSize: 1 << 24, automaticErrorHandling: true,
      shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
      upgradePipelineHandler: { channel, _ in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(EchoHandler())
        }
      })
    return channel.eventLoop.makeCompletedFuture {
      try channel.pipeline.syncOperations.configureHTTPServerPipeline(
        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
    }
  }

let server = try await bootstrap.bind(host: "127.0.0.1", port: port()).get()
// Unbuffered, so that websocket.sh sees it at once.
let line = "PORT \(server.localAddress?.port ?? 0)\n"
_ = line.withCString { write(1, $0, strlen($0)) }
try await server.closeFuture.get()
