// Parsers for the CLI's outputs: SVG through XMLParser (FoundationXML on Linux), CSV
// lines, JSON Lines, and the HTML player's embedded frame data.

import Foundation
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// An XML element seen while parsing: its name and attributes.
struct XMLElementRecord {
  var name: String
  var attributes: [String: String]
}

/// Collects every element of a well-formed XML document (nil if it does not parse).
final class XMLCollector: NSObject, XMLParserDelegate {
  private(set) var elements: [XMLElementRecord] = []
  private(set) var text = ""

  static func parse(_ data: Data) -> XMLCollector? {
    let parser = XMLParser(data: data)
    let collector = XMLCollector()
    parser.delegate = collector
    return parser.parse() ? collector : nil
  }

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String]
  ) {
    elements.append(XMLElementRecord(name: elementName, attributes: attributes))
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

  func elements(named name: String, class cls: String? = nil) -> [XMLElementRecord] {
    elements.filter { $0.name == name && (cls == nil || $0.attributes["class"] == cls) }
  }
}

/// SVG `points="x,y x,y ..."` as pairs.
func polygonPoints(_ text: String) -> [(Double, Double)] {
  text.split(separator: " ").compactMap { pair in
    let c = pair.split(separator: ",").compactMap { Double($0) }
    return c.count == 2 ? (c[0], c[1]) : nil
  }
}

/// Non-empty lines.
func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

/// The `const DATA = {...};` object of the HTML player.
func playerData(_ html: String) throws -> [String: Any] {
  let start = try #require(html.range(of: "const DATA = "))
  let end = try #require(html.range(of: ";\n// Palette.fill", range: start.upperBound..<html.endIndex))
  let json = Data(html[start.upperBound..<end.lowerBound].utf8)
  return try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
}
