import MustacheRendering

// Direct lookup of template variables. Without it the template package finds each variable through
// `Mirror`, which made rendering ~3 ms per handler in a debug build (2,000 handlers: 5.8 s).
// Every key a template uses must be listed here; the reference-file tests catch one that is not.

extension FileContext: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "moduleName": moduleName
        case "tableName": tableName
        case "hasHandlers": hasHandlers
        case "handlerCount": handlerCount
        case "handlers": handlers
        case "sourceImports": sourceImports
        case "cImports": cImports
        case "cTypes": cTypes
        default: nil
        }
    }
}

extension ConditionContext: MustacheParent {
    func child(named name: String) -> Any? {
        name == "expression" ? expression : nil
    }
}

extension MappedLine: MustacheParent where Item: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "remaps": remaps
        case "line": line
        default: item.child(named: name)
        }
    }
}

extension SignatureRow: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "blankLines": blankLines
        case "text": text
        default: nil
        }
    }
}

extension ParameterItem: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "kind": kind
        case "key": key
        case "metatype": metatype
        case "formerNames": formerNames
        default: nil
        }
    }
}

extension LocalItem: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "type": type
        case "accessor": accessor
        case "key": key
        case "hasDefault": hasDefault
        case "defaultValue": defaultValue
        case "callTimeName": callTimeName
        default: nil
        }
    }
}

extension CallVariant: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "opening": opening
        case "text": text
        default: nil
        }
    }
}

extension BindingItem: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "key": key
        case "name": self.name
        default: nil
        }
    }
}

extension HandlerSection: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "conditions": conditions
        case "isMember": isMember
        case "enclosingType": enclosingType
        case "qualifier": qualifier
        case "descriptorName": descriptorName
        case "members": members
        default: nil
        }
    }
}

extension HandlerContext: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "conditions": conditions
        case "isMember": isMember
        case "enclosingType": enclosingType
        case "descriptorModifiers": descriptorModifiers
        case "referenceModifiers": referenceModifiers
        case "callModifiers": callModifiers
        case "idName": idName
        case "qualifier": qualifier
        case "descriptorName": descriptorName
        case "referenceName": referenceName
        case "file": file
        case "sourceLocations": sourceLocations
        case "hasParameters": hasParameters
        case "parameterLines": parameterLines
        case "descriptorReturn": descriptorReturn
        case "isAsync": isAsync
        case "callClosureEffects": callClosureEffects
        case "argumentsName": argumentsName
        case "localLines": localLines
        case "callLine": callLine
        case "callText": callText
        case "hasCallVariants": hasCallVariants
        case "callVariants": callVariants
        case "mapsSignature": mapsSignature
        case "hasReferenceDoc": hasReferenceDoc
        case "signatureLine": signatureLine
        case "referenceParameterRows": referenceParameterRows
        case "referenceExtras": referenceExtras
        case "bindings": bindings
        case "bindingsName": bindingsName
        case "moduleName": moduleName
        case "tableName": tableName
        case "invalidationName": invalidationName
        case "registryName": registryName
        case "callName": callName
        case "handlerName": handlerName
        case "callParameterRows": callParameterRows
        default: nil
        }
    }
}

extension CTypeContext: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "location": location
        case "isStructure": isStructure
        case "decodeLines": decodeLines
        case "encodeLines": encodeLines
        default: nil
        }
    }
}

extension LineContext: MustacheParent {
    func child(named name: String) -> Any? {
        name == "text" ? text : nil
    }
}

extension SourceImportContext: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "declaration": declaration
        case "conditions": conditions
        default: nil
        }
    }
}

extension ImportContext: MustacheParent {
    func child(named name: String) -> Any? {
        name == "name" ? self.name : nil
    }
}

extension CTypeSection: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "text": text
        default: nil
        }
    }
}
