import HandlerKitSignals
print("probe")
